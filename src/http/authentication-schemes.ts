import {
  ApiKeyHandler,
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
 */
export function authenticationSchemes(
  services: Pick<Services, 'config' | 'bearerTokens' | 'apiKeys' | 'sessions' | 'keyRing'>,
  sessions: CookieSessionValidator = services.sessions,
): AuthenticationSchemeProvider {
  return new AuthenticationSchemeProvider(
    [
      new BearerHandler(services.bearerTokens),
      new ApiKeyHandler(services.apiKeys),
      new CookiesHandler({
        validator: sessions,
        protector: authCookieProtector(services.keyRing.secrets.cookie),
        cookieName: authCookieName(services.config),
      }),
    ],
    forwardByRequestShape,
  );
}
