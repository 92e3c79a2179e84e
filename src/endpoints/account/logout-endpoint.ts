import type { Config } from '../../config/config.ts';
import type { SignOut } from '../../membership/sign-out.ts';
import { clearAuthCookie } from '../auth-cookie.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { seeOther } from '../page-response.ts';
import { NO_STORE } from '../no-store.ts';
import type { AccountRedirects } from './account-paths.ts';

/** What the sign-out uses. */
export interface LogoutEndpointOptions {
  readonly config: Pick<Config, 'production'>;
  readonly paths: Pick<AccountRedirects, 'login'>;
  readonly signOut: SignOut;
  readonly cookies: Pick<CookieSignIn, 'presentedSession'>;
}

/**
 * `POST /account/logout`: deletes the browser's session in the store (not only its cookie, which a
 * copy would outlive) and clears the auth cookie; 204, or a form's 303 to the login page.
 */
export function logoutEndpoint({ config, paths, signOut, cookies }: LogoutEndpointOptions): Endpoint {
  return defineEndpoint({
    method: 'POST',
    path: '/account/logout',
    // The membership group's policy: any authenticated caller.
    authorization: {},
    forms: true,
    successStatus: 204,
    async handle(request) {
      const token = cookies.presentedSession(request);
      if (token !== null) await signOut.signOut(token);
      const answerCookies = new CookieList();
      clearAuthCookie(answerCookies, config);
      const set = { headers: NO_STORE, cookies: answerCookies.cookies };
      if (request.form) return seeOther(paths.login, set);
      return { status: 204, ...set };
    },
  });
}
