import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { PasskeyManager } from '../../identity/passkeys.ts';
import type { SessionManager } from '../../identity/sessions.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { UserSessions } from '../../identity/user-sessions.ts';
import type { PasswordChange } from '../../membership/password-change.ts';
import type { SignOut } from '../../membership/sign-out.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../cookie-sign-in.ts';
import type { Endpoint } from '../endpoint.ts';
import type { AccountRedirects } from './account-paths.ts';
import { loginEndpoints } from './login-endpoints.ts';
import { logoutEndpoint } from './logout-endpoint.ts';
import { passwordChangeEndpoint } from './password-change-endpoint.ts';
import { profileEndpoint } from './profile-endpoint.ts';
import { ProfilePage } from './profile-page.ts';

/** What the cookie side of membership uses: its use cases, the reads of the profile, its pages, and where it sends browsers. */
export interface AccountEndpointsOptions extends CookieSignInDependencies {
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  /** Where the endpoints send browsers, as full paths (`MembershipPaths` has them). */
  readonly paths: AccountRedirects;
  readonly signIn: Pick<SignInManager, 'passwordSignIn'>;
  readonly signOut: SignOut;
  readonly passwordChange: PasswordChange;
  readonly users: Pick<UserManager, 'findById'>;
  readonly sessions: Pick<SessionManager, 'current'>;
  readonly externalLogins: Pick<ExternalLogins, 'providersOf'>;
  /** The user's passkeys, for the profile page, when passkeys are on; else null. */
  readonly passkeys: Pick<PasskeyManager, 'list'> | null;
  /** "Where you are signed in", when the profile page lists the user's sessions; else null. */
  readonly userSessions: Pick<UserSessions, 'list'> | null;
  /**
   * Where the membership endpoints are mounted (`''` or a path such as `/identity`), for a host that
   * routes them itself (`fetchHandler`); a host that mounts them under the prefix leaves it out. @default ''
   */
  readonly prefix?: string;
}

/**
 * The cookie side of membership (docs/reference/http.md): the login page and `POST /account/login`
 * (a password sign-in that sets the auth cookie), `POST /account/logout`, `GET /account/profile` and
 * `POST /account/password`. Browsers get the same as pages and form posts (303 on success).
 */
export function accountEndpoints(options: AccountEndpointsOptions): readonly Endpoint[] {
  const { config, pages, paths, prefix = '' } = options;
  const cookies = new CookieSignIn(options);
  const profilePage = new ProfilePage({ pages, cookies, sessions: options.sessions, userSessions: options.userSessions });
  const providers = config.oidcProviders.map((provider) => provider.name);
  const endpoints = [
    ...loginEndpoints({ config, pages, paths, signIn: options.signIn, cookies }),
    logoutEndpoint({ config, paths, signOut: options.signOut, cookies }),
    passwordChangeEndpoint({ ...options, cookies, profilePage }),
    profileEndpoint({ ...options, providers, profilePage }),
  ];
  return endpoints.map((endpoint) => ({ ...endpoint, path: `${prefix}${endpoint.path}` }));
}
