import type { FastifyInstance } from 'fastify';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import { tokenEndpoint } from '../../endpoints/tokens/token-endpoint.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import type { RateLimitDependencies } from '../rate-limit.ts';

/** What the token endpoint uses: the sign-in (which opens the refresh family it grants), and where `/auth` is (the cookie's path). */
export interface AuthTokenRouteOptions extends RateLimitDependencies {
  readonly paths: MembershipPaths;
  readonly signIn: Pick<SignInManager, 'passwordSignIn' | 'twoFactorSignIn'>;
}

/** `POST /auth/token` (endpoints/tokens/token-endpoint.ts) on Fastify, with its sign-in limits. */
export async function authTokenRoutes(app: FastifyInstance, options: AuthTokenRouteOptions): Promise<void> {
  const { config, signIn, paths } = options;
  await registerEndpoints(app, [tokenEndpoint({ config, authPath: paths.auth, signIn })], { limits: options });
  // The limiter's Redis connection ends with the app; closing twice is harmless.
}
