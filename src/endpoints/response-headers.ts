/**
 * The headers docs/reference/http.md puts on every answer, for every host: `X-Content-Type-Options:
 * nosniff` (a JSON answer is never run as script or style), `Strict-Transport-Security` in
 * production, and `Cache-Control: no-store` on every answer to a request that carries
 * credentials (an Authorization, X-Api-Key or Cookie header, or one a scheme of the application
 * declares) or to an endpoint that needs or issues them: a shared cache or the browser's history
 * must never keep an answer about someone.
 */

/** One year, subdomains included: once a browser has seen the service over https, it never tries http. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

export interface ResponseHeadersOptions {
  /** Production answers carry `Strict-Transport-Security` (PUBLIC_URL is https there). */
  readonly production: boolean;
  /**
   * Endpoints under these paths issue or manage credentials, whatever the request carries
   * (`MembershipPaths.credentialPaths`: `/auth/`, `/account/`, `/signin-` under the prefix).
   */
  readonly credentialPaths: readonly string[];
  /**
   * The headers that carry credentials, in lower case: the contract's (Authorization, X-Api-Key,
   * Cookie) and those the registered schemes declare they read.
   */
  readonly credentialHeaders: readonly string[];
}

/**
 * Whether an endpoint's answers are never stored, whoever asks: decided once, when it is mounted,
 * from its path and whether it reads credentials (a policy, or `readCredentials`).
 */
export function isNoStoreEndpoint(path: string, readsCredentials: boolean, credentialPaths: readonly string[]): boolean {
  return readsCredentials || credentialPaths.some((prefix) => path.startsWith(prefix));
}

/** True when the request carries one of the credential headers. */
export function carriesCredentials(headers: Readonly<Record<string, string | string[] | undefined>>, names: readonly string[]): boolean {
  for (let i = 0; i < names.length; i++) if (headers[names[i]!] !== undefined) return true;
  return false;
}

/**
 * The headers of answers written outside any endpoint (a host's refusals before routing, Node's
 * client errors): every header above, `no-store` included, since whether the request carried
 * credentials is not known there.
 */
export function refusalHeaders(production: boolean): Readonly<Record<string, string>> {
  return {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    ...(production ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
  };
}

/** Sets one header of an answer: `Headers.set`, Node's `response.setHeader`, a framework adapter's. */
export type SetHeader = (name: string, value: string) => void;

/**
 * Puts the headers of every answer on an answer after a host's decision, the application's own
 * included: nosniff, HSTS in production, `no-store` when the request carried credentials. Hosts on
 * Node set them on Node's response before the application answers (a header the application sets
 * itself wins, as Express's own do); elsewhere, on the finished answer's `Headers`.
 */
export function secureAnswer(
  setHeader: SetHeader,
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
  options: Pick<ResponseHeadersOptions, 'production' | 'credentialHeaders'>,
): void {
  setHeader('x-content-type-options', 'nosniff');
  if (options.production) setHeader('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  if (carriesCredentials(requestHeaders, options.credentialHeaders)) setHeader('cache-control', 'no-store');
}

/** `secureAnswer` on a finished Web answer's headers (the application's route on Hono elsewhere than Node, a protected Web handler's). */
export function secureAnswerHeaders(
  headers: Headers,
  requestHeaders: Readonly<Record<string, string | string[] | undefined>>,
  options: Pick<ResponseHeadersOptions, 'production' | 'credentialHeaders'>,
): void {
  secureAnswer((name, value) => headers.set(name, value), requestHeaders, options);
}
