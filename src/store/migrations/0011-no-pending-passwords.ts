import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * A confirmation link no longer carries a password (docs/reference/http.md: registering again with an
 * unconfirmed address never changes that account's password). Links mailed before this version
 * may still hold one a stranger chose; they are emptied here, so that nothing of them is kept
 * (the column stays, unused: a released migration is never edited).
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, _engine: StoreEngine): Promise<void> {
  await db.updateTable('account_codes').set({ pending_password_hash: null }).where('pending_password_hash', 'is not', null).execute();
}
