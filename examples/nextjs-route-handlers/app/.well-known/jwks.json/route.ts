/** The keys that verify Gatehouse's access tokens: at the root whatever the prefix (RFC 8615's well-known paths). */
import { auth } from '../../../lib/auth.ts';

export const GET = auth.fetch;
