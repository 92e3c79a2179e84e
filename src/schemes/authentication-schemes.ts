import {
  ApiKeyHandler,
  API_KEY_CREDENTIALS,
  BEARER_CREDENTIALS,
  type CredentialSources,
  type AuthenticationHandler,
  type AuthenticationRequest,
  AuthenticationSchemeProvider,
  API_KEY_SCHEME,
  BEARER_SCHEME,
  COOKIES_SCHEME,
  BearerHandler,
  type CookieSessionValidator,
  CookiesHandler,
  declaredCredentials,
  type ForwardDefaultSelector,
  requestShapeSelector,
} from '../security/authentication/index.ts';
import type { Services } from '../services.ts';
import { authCookieName, authCookieProtector } from './auth-cookie.ts';

/** Which of Gatehouse's schemes are on, the application's own, and how the default is chosen. */
export interface SchemeOptions {
  readonly cookies: boolean;
  readonly bearer: boolean;
  readonly apiKeys: boolean;
  /** The application's schemes; one named like a built-in replaces it. */
  readonly extra: readonly AuthenticationHandler[];
  /** The scheme of routes that name none; by default chosen by the request's shape. */
  readonly defaultScheme?: string;
  /** Chooses the scheme of routes that name none, before `defaultScheme` and the request's shape. */
  readonly forwardDefaultSelector?: ForwardDefaultSelector;
}

const ALL_SCHEMES: SchemeOptions = { cookies: true, bearer: true, apiKeys: true, extra: [] };

/** The contract's request shapes, in the order they are looked for (docs/reference/http.md). */
const SHAPES = [BEARER_SCHEME, API_KEY_SCHEME] as const;
const BUILT_IN_SHAPES: Readonly<Record<(typeof SHAPES)[number], CredentialSources>> = { [BEARER_SCHEME]: BEARER_CREDENTIALS, [API_KEY_SCHEME]: API_KEY_CREDENTIALS };

/**
 * The schemes of docs/reference/http.md, side by side, over the services' validators, with the
 * application's own: the one list both requests and sockets authenticate with. `sessions` is how
 * the Cookies scheme reads a session: a request uses it (sliding its expiry); a socket's re-check
 * passes a reader that does not.
 */
export function authenticationSchemes(
  services: Pick<Services, 'config' | 'bearerTokens' | 'apiKeys' | 'sessions' | 'keyRing' | 'verdicts'>,
  sessions: CookieSessionValidator = services.sessions,
  options: SchemeOptions = ALL_SCHEMES,
): AuthenticationSchemeProvider {
  const builtIn: AuthenticationHandler[] = [];
  // A token's or a key's verdict depends on nothing but the credential, the clock and the
  // revocation events the scheme declares: it is remembered. A cookie's is not (it slides the
  // session and renews the cookie).
  const { verdicts } = services;
  if (options.bearer) builtIn.push(verdicts.remembering(new BearerHandler(services.bearerTokens)));
  if (options.apiKeys) builtIn.push(verdicts.remembering(new ApiKeyHandler(services.apiKeys)));
  if (options.cookies) {
    builtIn.push(
      new CookiesHandler({
        validator: sessions,
        protector: authCookieProtector(services.keyRing.secrets.cookie),
        cookieName: authCookieName(services.config),
      }),
    );
  }
  const replaced = new Set(options.extra.map((handler) => handler.scheme));
  const handlers = [...builtIn.filter((handler) => !replaced.has(handler.scheme)), ...options.extra];
  return new AuthenticationSchemeProvider(handlers, defaultSchemeSelector(handlers, options));
}

/**
 * The schemes the default may choose for a route that names none: any, with a selector of the
 * application's; else the one the application names; else those of the contract's request
 * shapes that are on, else the first.
 */
export function defaultSchemeChoices(schemes: readonly string[], options: Pick<SchemeOptions, 'defaultScheme' | 'forwardDefaultSelector'>): string[] {
  if (options.forwardDefaultSelector !== undefined) return [...schemes];
  if (options.defaultScheme !== undefined) return [options.defaultScheme];
  const byShape = [...SHAPES, COOKIES_SCHEME].filter((scheme) => schemes.includes(scheme));
  return byShape.length > 0 ? byShape : schemes.slice(0, 1);
}

/**
 * The default scheme (ASP.NET's `ForwardDefaultSelector`, then `DefaultScheme`): the
 * application's selector's choice; when it has none, the scheme the application names; else the
 * contract's choice by request shape among the schemes that are on, by what each declares it
 * reads (`declaredCredentials`), with Cookies, else the first scheme, when no shape matches.
 */
function defaultSchemeSelector(handlers: readonly AuthenticationHandler[], options: SchemeOptions): (request: AuthenticationRequest) => string {
  const registered = new Set(handlers.map((handler) => handler.scheme));
  const { defaultScheme, forwardDefaultSelector } = options;
  if (defaultScheme !== undefined && !registered.has(defaultScheme)) throw new Error(`No authentication scheme is registered as "${defaultScheme}".`);
  const otherwise = defaultScheme !== undefined ? () => defaultScheme : byRequestShape(handlers, registered);
  if (forwardDefaultSelector === undefined) return otherwise;
  return (request) => forwardDefaultSelector(request) ?? otherwise(request);
}

/**
 * A shape whose scheme is off still claims its requests, for the fallback: a Bearer header with
 * tokens off is not taken for an API key.
 */
function byRequestShape(handlers: readonly AuthenticationHandler[], registered: ReadonlySet<string>): (request: AuthenticationRequest) => string {
  const fallback = registered.has(COOKIES_SCHEME) ? COOKIES_SCHEME : (handlers[0]?.scheme ?? COOKIES_SCHEME);
  const candidates = SHAPES.map((scheme) => {
    const handler = handlers.find((candidate) => candidate.scheme === scheme);
    return handler === undefined ? { scheme: fallback, credentials: BUILT_IN_SHAPES[scheme] } : { scheme, credentials: declaredCredentials(handler) };
  });
  return requestShapeSelector(candidates, fallback);
}
