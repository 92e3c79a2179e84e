/**
 * The application's Gatehouse, started once per server process and shared by every route
 * handler: settings from the environment (DATABASE_URL, PUBLIC_URL, KEYRING_SECRET, TRUST_PROXY
 * and the rest of Gatehouse's variables), its endpoints under `/identity`.
 */
import { gatehouse, loadConfig } from 'gatehouse-auth/web';
import { documentPolicies } from './policies.ts';

/** Where Gatehouse's endpoints live: `/identity/auth/token`, `/identity/account/register`, … (app/identity/[...gatehouse]). */
export const IDENTITY_PREFIX = '/identity';

export const auth = await gatehouse({ config: loadConfig(), prefix: IDENTITY_PREFIX, policies: documentPolicies() });
