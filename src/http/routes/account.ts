import type { FastifyInstance } from 'fastify';
import { accountEndpoints } from '../../endpoints/account/account-endpoints.ts';
import type { CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { PasskeyManager } from '../../identity/passkeys.ts';
import type { SessionManager } from '../../identity/sessions.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { UserSessions } from '../../identity/user-sessions.ts';
import type { PasswordChange } from '../../membership/password-change.ts';
import type { SignOut } from '../../membership/sign-out.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What the cookie side of membership uses: its use cases, the reads of the profile, and where the routes are. */
export interface AccountRouteOptions extends CookieSignInDependencies, RateLimitDependencies {
  readonly paths: MembershipPaths;
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
}

/**
 * The cookie side of membership (endpoints/account/account-endpoints.ts) on Fastify, under the
 * membership prefix, with the sign-in limits and the service's pages.
 */
export async function accountRoutes(app: FastifyInstance, options: AccountRouteOptions): Promise<void> {
  await registerEndpoints(app, accountEndpoints({ ...options, pages: app.pages }), { limits: options });
}
