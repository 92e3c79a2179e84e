import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { TwoFactorManager } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../cookie-sign-in.ts';
import type { Endpoint } from '../endpoint.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../recent-sign-in-check.ts';
import { accountChanges } from './account-changes.ts';
import { authenticatorEndpoints } from './authenticator-endpoints.ts';
import { phoneEndpoints } from './phone-endpoints.ts';
import { secondStepEndpoints } from './second-step-endpoints.ts';

/** What two-factor sign-in and set-up use: the second step, the two-factor use cases, the cookies, the pages, and where the login and profile pages are. */
export interface TwoFactorEndpointsOptions extends CookieSignInDependencies, RecentSignInCheckDependencies {
  readonly paths: { readonly login: string; readonly profile: string };
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  readonly signIn: Pick<SignInManager, 'twoFactorSignIn'>;
  readonly twoFactor: TwoFactorManager;
  readonly users: Pick<UserManager, 'findById'>;
}

/**
 * Two-factor sign-in (docs/reference/http.md), under the mount point: the second step of a
 * browser sign-in, and the signed-in user's authenticator, recovery codes and phone number. Each
 * answers JSON, or pages and redirects to a browser and its forms. The second steps and the
 * changes that check a code have the sign-in limits.
 */
export function twoFactorEndpoints(options: TwoFactorEndpointsOptions): readonly Endpoint[] {
  const { pages, signIn, twoFactor, users, paths } = options;
  const cookies = new CookieSignIn(options);
  const recent = new RecentSignInCheck(options, cookies);
  const change = accountChanges({ users, recent, pages, clock: options.clock, config: options.config });
  return [
    ...secondStepEndpoints({ paths, pages, cookies, signIn, twoFactor, users }),
    ...authenticatorEndpoints({ pages, cookies, twoFactor, users, change }),
    ...phoneEndpoints({ pages, twoFactor, users, change }),
  ];
}
