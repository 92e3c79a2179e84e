import type { Endpoint } from '../endpoint.ts';
import { accountPasskeyEndpoints, type AccountPasskeyEndpointOptions } from './account-passkey-endpoints.ts';
import { passkeyLoginEndpoints, type PasskeyLoginEndpointOptions } from './passkey-login-endpoints.ts';

/** What the passkey endpoints use: the sign-in's and the account's. */
export interface PasskeyEndpointsOptions extends AccountPasskeyEndpointOptions, PasskeyLoginEndpointOptions {
  readonly passkeys: AccountPasskeyEndpointOptions['passkeys'] & PasskeyLoginEndpointOptions['passkeys'];
  /** Where the membership endpoints are mounted (`''` or a path such as `/identity`). @default '' */
  readonly prefix?: string;
}

/**
 * The signed-in user's passkeys and the sign-in with a passkey, at their full paths for a host
 * that routes them itself (`fetchHandler`).
 */
export function passkeyEndpoints({ prefix = '', ...options }: PasskeyEndpointsOptions): readonly Endpoint[] {
  const underPrefix = (endpoint: Endpoint): Endpoint => ({ ...endpoint, path: `${prefix}${endpoint.path}` });
  return [...accountPasskeyEndpoints(options), ...passkeyLoginEndpoints(options)].map(underPrefix);
}
