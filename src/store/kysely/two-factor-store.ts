import type { AuthenticatorKeys, OneTimeCodePurpose, TwoFactorStore } from '../ports.ts';
import type { StoreContext } from './store-context.ts';
import { securityChange } from './user-links.ts';

/**
 * Authenticator keys, recovery codes and one-time codes. Every use of a code is a conditional
 * update (`used_at IS NULL`, `last_step < step`), so of two concurrent uses exactly one succeeds.
 */
export class KyselyTwoFactorStore implements TwoFactorStore {
  constructor(private readonly context: StoreContext) {}

  async authenticatorKeys(userId: number): Promise<AuthenticatorKeys> {
    const row = await this.context.db
      .selectFrom('authenticator_keys')
      .select(['active_key', 'pending_key', 'last_step'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return { activeKey: row?.active_key ?? null, pendingKey: row?.pending_key ?? null, lastStep: row?.last_step ?? null };
  }

  async setPendingKey(userId: number, sealedKey: string): Promise<void> {
    await this.context.db
      .insertInto('authenticator_keys')
      .values({ user_id: userId, active_key: null, pending_key: sealedKey, last_step: null })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ pending_key: sealedKey }))
      .execute();
  }

  async enable(userId: number, change: { sealedKey: string; step: number; recoveryCodeHashes: readonly string[]; now: number }): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const moved = await trx
        .updateTable('authenticator_keys')
        .set({ active_key: change.sealedKey, pending_key: null, last_step: change.step })
        .where('user_id', '=', userId)
        .where('pending_key', '=', change.sealedKey)
        .executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      await securityChange(trx, userId, change.now, { two_factor_enabled: 1 });
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await insertRecoveryCodes(trx, userId, change.recoveryCodeHashes);
      return true;
    });
  }

  async disable(userId: number, now: number): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const user = await trx.selectFrom('users').select('two_factor_enabled').where('id', '=', userId).executeTakeFirst();
      if (!user || user.two_factor_enabled === 0) return false;
      await securityChange(trx, userId, now, { two_factor_enabled: 0 });
      await trx.deleteFrom('authenticator_keys').where('user_id', '=', userId).execute();
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      return true;
    });
  }

  async acceptStep(userId: number, step: number): Promise<boolean> {
    const result = await this.context.db
      .updateTable('authenticator_keys')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async replaceRecoveryCodes(userId: number, codeHashes: readonly string[]): Promise<void> {
    await this.context.transaction(async (trx) => {
      await trx.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
      await insertRecoveryCodes(trx, userId, codeHashes);
    });
  }

  async redeemRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const result = await this.context.db
      .updateTable('recovery_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async countRecoveryCodes(userId: number): Promise<number> {
    const row = await this.context.db
      .selectFrom('recovery_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async issueCode(code: {
    userId: number;
    purpose: OneTimeCodePurpose;
    codeHash: string;
    phoneNumber: string | null;
    createdAt: number;
    expiresAt: number;
  }): Promise<void> {
    await this.context.transaction(async (trx) => {
      await trx
        .updateTable('one_time_codes')
        .set({ used_at: code.createdAt })
        .where('user_id', '=', code.userId)
        .where('purpose', '=', code.purpose)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .insertInto('one_time_codes')
        .values({
          user_id: code.userId,
          purpose: code.purpose,
          code_hash: code.codeHash,
          phone_number: code.phoneNumber,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
        })
        .execute();
    });
  }

  async useCode(use: { userId: number; purpose: OneTimeCodePurpose; codeHash: string; now: number }): Promise<{ phoneNumber: string | null } | undefined> {
    const row = await this.context.db
      .updateTable('one_time_codes')
      .set({ used_at: use.now })
      .where('user_id', '=', use.userId)
      .where('purpose', '=', use.purpose)
      .where('code_hash', '=', use.codeHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', use.now)
      .returning('phone_number')
      .executeTakeFirst();
    return row ? { phoneNumber: row.phone_number } : undefined;
  }

  async setPhoneNumber(userId: number, phoneNumber: string | null): Promise<void> {
    await this.context.db.updateTable('users').set({ phone_number: phoneNumber, phone_confirmed: 0 }).where('id', '=', userId).execute();
  }

  async confirmPhoneNumber(userId: number, phoneNumber: string): Promise<boolean> {
    const result = await this.context.db
      .updateTable('users')
      .set({ phone_confirmed: 1 })
      .where('id', '=', userId)
      .where('phone_number', '=', phoneNumber)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

async function insertRecoveryCodes(trx: StoreContext['db'], userId: number, codeHashes: readonly string[]): Promise<void> {
  if (codeHashes.length === 0) return;
  await trx
    .insertInto('recovery_codes')
    .values(codeHashes.map((codeHash) => ({ user_id: userId, code_hash: codeHash })))
    .execute();
}
