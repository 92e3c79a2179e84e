/**
 * The part of a request that schemes read. Transports (HTTP, WebSocket) adapt their own
 * request to it, so schemes never see Fastify.
 */
export interface AuthenticationRequest {
  /** Header values by lower-case name, as Node delivers them (duplicates may be joined). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Cookies by name, when the transport parsed them. */
  readonly cookies?: Readonly<Record<string, string | undefined>>;
  /** The caller's address as the transport trusts it (behind proxies: as `TRUST_PROXY` allows). */
  readonly ip?: string;
}

/** A header as one string; a header sent twice is an array and counts as malformed (null). */
export function singleHeader(request: AuthenticationRequest, name: string): string | null | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return null;
  return value;
}
