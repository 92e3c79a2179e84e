import type { FastifyInstance } from 'fastify';
import { twoFactorEndpoints, type TwoFactorEndpointsOptions } from '../../endpoints/two-factor/two-factor-endpoints.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What two-factor sign-in and set-up use: the second step, the two-factor use cases, the cookies, the limits, and where the routes are. */
export interface AccountTwoFactorRouteOptions extends Omit<TwoFactorEndpointsOptions, 'paths' | 'pages'>, RateLimitDependencies {
  readonly paths: MembershipPaths;
}

/**
 * Two-factor sign-in (docs/reference/http.md): the second step of a browser sign-in and the
 * signed-in user's authenticator, recovery codes and phone number (endpoints/two-factor/), on
 * Fastify with the service's pages.
 */
export async function accountTwoFactorRoutes(app: FastifyInstance, options: AccountTwoFactorRouteOptions): Promise<void> {
  const { config, rateLimiter, signInTurns } = options;
  await registerEndpoints(app, twoFactorEndpoints({ ...options, pages: app.pages }), { limits: { config, rateLimiter, signInTurns } });
}
