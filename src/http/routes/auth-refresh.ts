import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.ts';
import { refreshEndpoints } from '../../endpoints/tokens/refresh-endpoints.ts';
import type { RefreshTokens } from '../../tokens/refresh-tokens.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';

/** What refresh and revoke use: the refresh families, the settings of their cookie, and where `/auth` is (the cookie's path). */
export interface AuthRefreshRouteOptions {
  readonly config: Config;
  readonly paths: MembershipPaths;
  readonly refreshTokens: Pick<RefreshTokens, 'refresh' | 'revoke'>;
}

/** `POST /auth/refresh` and `POST /auth/revoke` (endpoints/tokens/refresh-endpoints.ts) on Fastify. */
export async function authRefreshRoutes(app: FastifyInstance, { config, paths, refreshTokens }: AuthRefreshRouteOptions): Promise<void> {
  await registerEndpoints(app, refreshEndpoints({ config, authPath: paths.auth, refreshTokens }));
}
