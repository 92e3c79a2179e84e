import type { FastifyInstance } from 'fastify';
import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { ProviderSignIn } from '../../membership/provider-sign-in.ts';
import type { CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import { externalLoginEndpoints } from '../../endpoints/external-login/external-login-endpoints.ts';
import type { RecentSignInCheckDependencies } from '../../endpoints/recent-sign-in-check.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What external sign-in uses: the provider's sign-in and unlinking, the cookies, the recent-sign-in rule, and where the routes are. */
export interface ExternalLoginRouteOptions extends CookieSignInDependencies, RateLimitDependencies, RecentSignInCheckDependencies {
  readonly paths: MembershipPaths;
  readonly providerSignIn: ProviderSignIn;
  readonly externalLogins: Pick<ExternalLogins, 'unlink'>;
  readonly users: Pick<UserManager, 'findById'>;
}

/** External sign-in with OpenID Connect (endpoints/external-login/) on Fastify, its pages rendered by `app.pages`. */
export async function externalLoginRoutes(app: FastifyInstance, options: ExternalLoginRouteOptions): Promise<void> {
  await registerEndpoints(app, externalLoginEndpoints({ ...options, pages: app.pages }), { limits: options });
}
