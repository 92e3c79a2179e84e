import type { Config } from '../../config/config.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { KeyRing } from '../../tokens/key-ring.ts';
import type { RefreshTokens } from '../../tokens/refresh-tokens.ts';
import type { Endpoint } from '../endpoint.ts';
import { jwksEndpoint } from './jwks-endpoint.ts';
import { refreshEndpoints } from './refresh-endpoints.ts';
import { tokenEndpoint } from './token-endpoint.ts';

/** What the token endpoints use. */
export interface TokenEndpointsOptions {
  readonly config: Config;
  readonly keyRing: Pick<KeyRing, 'jwks'>;
  readonly signIn: Pick<SignInManager, 'passwordSignIn' | 'twoFactorSignIn'>;
  readonly refreshTokens: Pick<RefreshTokens, 'refresh' | 'revoke'>;
  /** Where the membership endpoints are mounted (`''` or a path such as `/identity`). @default '' */
  readonly prefix?: string;
}

/**
 * The JWKS, `/auth/token`, `/auth/refresh` and `/auth/revoke`, at their full paths for a host that
 * routes them itself (`fetchHandler`): the JWKS at the root whatever the prefix (RFC 8615), the
 * others under it, with the refresh cookie's path theirs.
 */
export function tokenEndpoints({ config, keyRing, signIn, refreshTokens, prefix = '' }: TokenEndpointsOptions): readonly Endpoint[] {
  const authPath = `${prefix}/auth`;
  const underPrefix = (endpoint: Endpoint): Endpoint => ({ ...endpoint, path: `${prefix}${endpoint.path}` });
  return [jwksEndpoint(keyRing), ...[tokenEndpoint({ config, authPath, signIn }), ...refreshEndpoints({ config, authPath, refreshTokens })].map(underPrefix)];
}
