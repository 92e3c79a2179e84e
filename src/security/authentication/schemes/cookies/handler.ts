import { AuthenticateResult } from '../../authenticate-result.ts';
import type { AuthenticationHandler, Challenge } from '../../authentication-handler.ts';

export const COOKIES_SCHEME = 'Cookies';

/**
 * The cookie scheme's place in the registry. Cookie sessions arrive with the membership
 * flows; until then it finds no credentials, and its challenge asks for a bearer token,
 * as the contract says a request without credentials is answered.
 */
export class CookiesHandler implements AuthenticationHandler {
  readonly scheme = COOKIES_SCHEME;

  authenticate(): AuthenticateResult {
    return AuthenticateResult.noResult();
  }

  challenge(): Challenge {
    return { wwwAuthenticate: 'Bearer' };
  }
}
