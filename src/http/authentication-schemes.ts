import {
  ApiKeyHandler,
  type AuthenticationHandler,
  AuthenticationSchemeProvider,
  BearerHandler,
  type CookieSessionValidator,
  CookiesHandler,
  forwardByRequestShape,
} from '../security/authentication/index.ts';
import type { Services } from '../services.ts';
import { authCookieName, authCookieProtector } from './auth-cookie.ts';

/**
 * The schemes of SPEC section 2, side by side, over the services' validators: the one list both
 * requests and sockets authenticate with. `sessions` is how the Cookies scheme reads a session:
 * a request uses it (sliding its expiry); a socket's re-check passes a reader that does not.
 * The application's schemes join them, replacing a built-in one of the same name, and its
 * default scheme, when it names one, replaces the choice by the request's shape.
 */
export function authenticationSchemes(
  services: Pick<Services, 'config' | 'bearerTokens' | 'apiKeys' | 'sessions' | 'keyRing'>,
  sessions: CookieSessionValidator = services.sessions,
  application: { readonly schemes?: readonly AuthenticationHandler[]; readonly defaultScheme?: string } = {},
): AuthenticationSchemeProvider {
  const own = application.schemes ?? [];
  const replaced = new Set(own.map((handler) => handler.scheme));
  const { defaultScheme } = application;
  const builtIn: AuthenticationHandler[] = [
    new BearerHandler(services.bearerTokens),
    new ApiKeyHandler(services.apiKeys),
    new CookiesHandler({
      validator: sessions,
      protector: authCookieProtector(services.keyRing.secrets.cookie),
      cookieName: authCookieName(services.config),
    }),
  ];
  const provider = new AuthenticationSchemeProvider(
    [...builtIn.filter((handler) => !replaced.has(handler.scheme)), ...own],
    defaultScheme === undefined ? forwardByRequestShape : () => defaultScheme,
  );
  // An unknown default scheme is a configuration error, found at start-up.
  if (defaultScheme !== undefined) provider.get(defaultScheme);
  return provider;
}
