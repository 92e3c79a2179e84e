import type { AuthenticationRequest } from './authentication-request.ts';

/**
 * Where a scheme's credential travels in a request: what the scheme reads, declared so that
 * everything around it that must treat a credential with care finds it without knowing the
 * scheme. The log leaves these headers out (`createLogger`), answers to requests that carry them
 * are `Cache-Control: no-store`, a socket keeps them from its upgrade request to authenticate
 * again later, and the default scheme chosen by request shape looks for them.
 */
export interface CredentialSources {
  /** Header names, in lower case (`x-signature`). */
  readonly headers?: readonly string[];
  /**
   * The authentication scheme the `Authorization` header must start with (RFC 9110), when the
   * scheme reads that header: `Bearer` for `Authorization: Bearer <token>`. An `Authorization`
   * header of another scheme is then not this scheme's credential. Without it, any
   * `Authorization` header is.
   */
  readonly authorizationScheme?: string;
  /** Cookie names; the `Cookie` header then counts as carrying a credential. */
  readonly cookies?: readonly string[];
  /**
   * How a graphql-ws `connection_init` payload brings this credential: each payload field that
   * carries it, with the header it stands for (`{ authorization: 'authorization' }` for
   * `{"authorization":"Bearer <jwt>"}`). The socket authenticates with the default scheme over a
   * request whose headers are these fields; a field that is present but not a string refuses
   * the socket.
   */
  readonly connectionParams?: Readonly<Record<string, string>>;
}

const NONE: readonly string[] = Object.freeze([]);

/** A scheme that declares nothing: no header, no cookie, nothing at `connection_init`. */
export const NO_CREDENTIAL_SOURCES: CredentialSources = Object.freeze({});

/** Whether a request carries a credential; see `credentialPresence`. */
export type CredentialPresence = (request: AuthenticationRequest) => boolean;

/**
 * The test of whether a request carries a credential from `sources`, well-formed or not (the
 * scheme judges it): any of its headers, an `Authorization` header of its authentication scheme
 * (a repeated one counts, for the scheme to refuse as malformed), or any of its cookies. Built
 * once, when the schemes are known: per request it reads what is there and allocates nothing,
 * unless a cookie must be looked for in an unparsed `Cookie` header.
 */
export function credentialPresence(sources: CredentialSources): CredentialPresence {
  const tests = (sources.headers ?? NONE).map((name) => headerPresence(name.toLowerCase(), sources.authorizationScheme));
  const cookies = sources.cookies ?? NONE;
  if (cookies.length > 0) tests.push((request) => cookies.some((name) => cookiePresent(request, name)));
  if (tests.length === 1) return tests[0]!;
  return (request) => {
    for (let i = 0; i < tests.length; i++) if (tests[i]!(request)) return true;
    return false;
  };
}

function headerPresence(name: string, authorizationScheme: string | undefined): CredentialPresence {
  if (name !== 'authorization' || authorizationScheme === undefined) return (request) => request.headers[name] !== undefined;
  // `Bearer` alone or followed by white space, in any case (RFC 9110's auth-scheme is case-insensitive).
  const ofScheme = new RegExp(`^${escapeRegExp(authorizationScheme)}(?:\\s|$)`, 'i');
  return (request) => {
    const value = request.headers.authorization;
    return value !== undefined && (Array.isArray(value) || ofScheme.test(value));
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The header names that carry some scheme's credential: the declared ones, and `cookie` where a
 * scheme reads cookies. Worked out once, when the schemes are known.
 */
export function credentialHeaderNames(sources: Iterable<CredentialSources>): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    for (const name of source.headers ?? NONE) names.add(name.toLowerCase());
    if (source.cookies !== undefined && source.cookies.length > 0) names.add('cookie');
  }
  return [...names];
}

function cookiePresent(request: AuthenticationRequest, name: string): boolean {
  if (request.cookies !== undefined) return request.cookies[name] !== undefined;
  const header = request.headers.cookie;
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join('; ') : header;
  return text.split(';').some((pair) => pair.trimStart().startsWith(`${name}=`));
}
