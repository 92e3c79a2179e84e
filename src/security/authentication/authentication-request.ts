/**
 * The part of a request that schemes read. Transports (HTTP, WebSocket) adapt their own
 * request to it, so schemes never see Fastify; a socket's is its upgrade request's.
 */
export interface AuthenticationRequest {
  /** Header values by lower-case name, as Node delivers them (duplicates may be joined). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Cookies by name, when the transport parsed them. */
  readonly cookies?: Readonly<Record<string, string | undefined>>;
  /** The caller's address as the transport trusts it (behind proxies: as `TRUST_PROXY` allows). */
  readonly ip?: string;
  /** The request's method, in upper case (`GET` for a socket's upgrade). */
  readonly method?: string;
  /** The request target as sent: the path and the query string (`/reports?year=2025`); see `requestPath`. */
  readonly url?: string;
  /** The query string's parameters as sent, before any validation (a repeated one is an array). */
  readonly query?: Readonly<Record<string, string | string[] | undefined>>;
}

/** A header as one string; a header sent twice is an array and counts as malformed (null). */
export function singleHeader(request: AuthenticationRequest, name: string): string | null | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) return null;
  return value;
}

/** The request's path, without its query string; undefined when the transport gave no target. */
export function requestPath(request: AuthenticationRequest): string | undefined {
  const { url } = request;
  if (url === undefined) return undefined;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
