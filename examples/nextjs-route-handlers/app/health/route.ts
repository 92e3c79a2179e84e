/** Open to anyone: no credential is read. */
import { auth } from '../../lib/auth.ts';

export const GET = auth.route(() => Response.json({ status: 'ok' }), { allowAnonymous: true });
