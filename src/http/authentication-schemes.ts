import {
  ApiKeyHandler,
  type AuthenticationHandler,
  AuthenticationSchemeProvider,
  API_KEY_SCHEME,
  BEARER_SCHEME,
  COOKIES_SCHEME,
  BearerHandler,
  type CookieSessionValidator,
  CookiesHandler,
  forwardByRequestShape,
} from '../security/authentication/index.ts';
import type { Services } from '../services.ts';
import { authCookieName, authCookieProtector } from './auth-cookie.ts';

/** Which of Gatehouse's schemes are on, the application's own, and the default. */
export interface SchemeOptions {
  readonly cookies: boolean;
  readonly bearer: boolean;
  readonly apiKeys: boolean;
  /** The application's schemes; one named like a built-in replaces it. */
  readonly extra: readonly AuthenticationHandler[];
  /** The scheme of routes that name none; by default chosen by the request's shape. */
  readonly defaultScheme?: string;
}

const ALL_SCHEMES: SchemeOptions = { cookies: true, bearer: true, apiKeys: true, extra: [] };

/**
 * The schemes of docs/reference/http.md, side by side, over the services' validators, with the
 * application's own: the one list both requests and sockets authenticate with. `sessions` is how
 * the Cookies scheme reads a session: a request uses it (sliding its expiry); a socket's re-check
 * passes a reader that does not.
 */
export function authenticationSchemes(
  services: Pick<Services, 'config' | 'bearerTokens' | 'apiKeys' | 'sessions' | 'keyRing'>,
  sessions: CookieSessionValidator = services.sessions,
  options: SchemeOptions = ALL_SCHEMES,
): AuthenticationSchemeProvider {
  const builtIn: AuthenticationHandler[] = [];
  if (options.bearer) builtIn.push(new BearerHandler(services.bearerTokens));
  if (options.apiKeys) builtIn.push(new ApiKeyHandler(services.apiKeys));
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
  return new AuthenticationSchemeProvider(handlers, defaultSchemeSelector(handlers, options.defaultScheme));
}

/**
 * The schemes the default may choose for a route that names none: the one the application names,
 * else those of the contract's request shapes that are on, else the first.
 */
export function defaultSchemeChoices(schemes: readonly string[], defaultScheme: string | undefined): string[] {
  if (defaultScheme !== undefined) return [defaultScheme];
  const byShape = [BEARER_SCHEME, API_KEY_SCHEME, COOKIES_SCHEME].filter((scheme) => schemes.includes(scheme));
  return byShape.length > 0 ? byShape : schemes.slice(0, 1);
}

/**
 * The default scheme: the one the application names, else the contract's choice by request
 * shape among the schemes that are on, else the first scheme.
 */
function defaultSchemeSelector(handlers: readonly AuthenticationHandler[], defaultScheme: string | undefined) {
  const registered = new Set(handlers.map((handler) => handler.scheme));
  if (defaultScheme !== undefined) {
    if (!registered.has(defaultScheme)) throw new Error(`No authentication scheme is registered as "${defaultScheme}".`);
    return () => defaultScheme;
  }
  const fallback = registered.has(COOKIES_SCHEME) ? COOKIES_SCHEME : (handlers[0]?.scheme ?? COOKIES_SCHEME);
  return (request: Parameters<typeof forwardByRequestShape>[0]) => {
    const chosen = forwardByRequestShape(request);
    return registered.has(chosen) ? chosen : fallback;
  };
}
