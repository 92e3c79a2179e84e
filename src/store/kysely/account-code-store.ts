import type { Kysely } from 'kysely';
import type { AccountCodePurpose, AccountCodeStore, ResetRemovals } from '../ports.ts';
import type { Database } from './database.ts';
import type { StoreContext } from './store-context.ts';
import { setPassword } from './user-links.ts';

/**
 * Confirmation and reset codes. Each use is one transaction: the code is marked used by a
 * conditional update (`used_at IS NULL`), so of two concurrent uses exactly one changes anything.
 */
export class KyselyAccountCodeStore implements AccountCodeStore {
  constructor(private readonly context: StoreContext) {}

  async issue(code: {
    userId: number;
    purpose: AccountCodePurpose;
    codeHash: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<void> {
    await this.context.transaction(async (trx) => {
      await voidUnused(trx, code.userId, code.purpose);
      await trx
        .insertInto('account_codes')
        .values({
          user_id: code.userId,
          purpose: code.purpose,
          code_hash: code.codeHash,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
        })
        .execute();
    });
  }

  async confirmEmail(use: { userId: number; codeHash: string; now: number }): Promise<'confirmed' | 'invalid'> {
    return this.context.transaction(async (trx) => {
      const code = await findCode(trx, use.codeHash, 'confirm-email');
      if (!code || code.user_id !== use.userId) return 'invalid';
      // The same link opened twice (or by a mail scanner first) still says "confirmed".
      if (code.used_at !== null) return 'confirmed';
      if (code.expires_at <= use.now) return 'invalid';
      // A concurrent use of the same code won the update: it confirmed, this one need not.
      if (!(await markUsed(trx, code.id, use.now))) return 'confirmed';
      await trx.updateTable('users').set({ email_confirmed: 1 }).where('id', '=', use.userId).execute();
      await voidUnused(trx, use.userId, 'confirm-email');
      return 'confirmed';
    });
  }

  async resetPassword(use: { userId: number; codeHash: string; passwordHash: string; now: number; remove?: ResetRemovals }): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const code = await findCode(trx, use.codeHash, 'reset-password');
      if (!code || code.user_id !== use.userId || code.used_at !== null || code.expires_at <= use.now) return false;
      if (!(await markUsed(trx, code.id, use.now))) return false;
      await setPassword(trx, use.userId, use.passwordHash, use.now);
      // Whoever locked the account by guessing cannot keep its owner out (SEC-75); an admin lock
      // is another column and stays.
      await trx.updateTable('users').set({ lockout_end: null }).where('id', '=', use.userId).execute();
      await voidUnused(trx, use.userId, 'reset-password');
      // The new password is a way in: removing every other one never leaves the account without one.
      if (use.remove?.passkeys) await trx.deleteFrom('passkeys').where('user_id', '=', use.userId).execute();
      if (use.remove?.externalLogins) await trx.deleteFrom('external_logins').where('user_id', '=', use.userId).execute();
      return true;
    });
  }
}

function findCode(trx: Kysely<Database>, codeHash: string, purpose: AccountCodePurpose) {
  return trx
    .selectFrom('account_codes')
    .select(['id', 'user_id', 'expires_at', 'used_at'])
    .where('code_hash', '=', codeHash)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
}

async function markUsed(trx: Kysely<Database>, id: number, now: number): Promise<boolean> {
  const result = await trx.updateTable('account_codes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A new code voids the older ones that were never used; used ones stay, for idempotent confirmation. */
async function voidUnused(trx: Kysely<Database>, userId: number, purpose: AccountCodePurpose): Promise<void> {
  await trx.deleteFrom('account_codes').where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}
