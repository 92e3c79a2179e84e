import type { Kysely, Selectable } from 'kysely';
import type { RefreshFamily, RefreshTokenRecord, RefreshTokenStore, RotationOutcome } from '../ports.ts';
import type { Database, RefreshFamiliesTable, RefreshTokensTable } from './database.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Refresh-token families (docs/reference/tokens.md). A family is live while it is neither revoked nor
 * expired (`expires_at > now`); only the unused token of a live family rotates.
 */
export class KyselyRefreshTokenStore implements RefreshTokenStore {
  constructor(private readonly context: StoreContext) {}

  async createFamily(family: {
    userId: number;
    securityStamp: number;
    tokenHash: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<{ family: RefreshFamily; token: RefreshTokenRecord }> {
    return this.context.transaction(async (trx) => {
      const familyRow = await trx
        .insertInto('refresh_families')
        .values({
          user_id: family.userId,
          security_stamp: family.securityStamp,
          created_at: family.createdAt,
          expires_at: family.expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const tokenRow = await trx
        .insertInto('refresh_tokens')
        .values({ family_id: familyRow.id, parent_id: null, token_hash: family.tokenHash, created_at: family.createdAt })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { family: toFamily(familyRow), token: toToken(tokenRow) };
    });
  }

  /**
   * One conditional UPDATE decides the winner: it marks the token used only while it is unused
   * and its family live. PostgreSQL (READ COMMITTED): a concurrent caller blocks on the row lock
   * the winner's UPDATE holds, then re-checks `used_at IS NULL` against the committed row and
   * changes nothing. SQLite: transactions are BEGIN IMMEDIATE, so callers run one at a time.
   * Only the caller whose UPDATE changed a row inserts the successor; the others classify.
   */
  async rotate(rotation: {
    tokenHash: string;
    nextHash: string;
    now: number;
    grace: { sealed: string; until: number } | null;
  }): Promise<RotationOutcome> {
    const { tokenHash, nextHash, now, grace } = rotation;
    return this.context.transaction(async (trx): Promise<RotationOutcome> => {
      const used = await trx
        .updateTable('refresh_tokens')
        .set({ used_at: now, grace_sealed: grace?.sealed ?? null, grace_until: grace?.until ?? null })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('refresh_families')
              .select('refresh_families.id')
              .whereRef('refresh_families.id', '=', 'refresh_tokens.family_id')
              .where('refresh_families.revoked_at', 'is', null)
              .where('refresh_families.expires_at', '>', now),
          ),
        )
        .returningAll()
        .executeTakeFirst();

      if (used) {
        const next = await trx
          .insertInto('refresh_tokens')
          .values({ family_id: used.family_id, parent_id: used.id, token_hash: nextHash, created_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        const family = await trx
          .selectFrom('refresh_families')
          .selectAll()
          .where('id', '=', used.family_id)
          .executeTakeFirstOrThrow();
        return { kind: 'rotated', family: toFamily(family), next: toToken(next) };
      }

      // The UPDATE changed nothing: say why. On PostgreSQL this statement sees whatever the
      // winner committed while this caller waited for its row lock.
      const found = await findWithFamily(trx, tokenHash);
      if (!found) return { kind: 'unknown' };
      const { token, family } = found;
      if (family.revokedAt !== null || family.expiresAt <= now) return { kind: 'ended', family };
      if (token.usedAt === null) {
        // Unused and live, yet not updated: cannot happen while the conditions above match
        // the UPDATE's. Fail rather than report a reuse, which would end the family.
        throw new Error(`Refresh token ${token.id} is unused in a live family but did not rotate.`);
      }
      const successor = await trx
        .selectFrom('refresh_tokens')
        .select('id')
        .where('parent_id', '=', token.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return { kind: 'reused', family, token, successorUnused: successor !== undefined };
    });
  }

  async find(tokenHash: string): Promise<{ token: RefreshTokenRecord; family: RefreshFamily } | null> {
    return findWithFamily(this.context.db, tokenHash);
  }

  async revokeFamily(familyId: number, now: number): Promise<boolean> {
    const result = await this.context.db
      .updateTable('refresh_families')
      .set({ revoked_at: now })
      .where('id', '=', familyId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async revokeUserFamilies(userId: number, now: number): Promise<number> {
    return revokeLiveFamilies(this.context.db, userId, now);
  }

  async prune(before: number): Promise<number> {
    return this.context.transaction(async (trx) => {
      await trx
        .updateTable('refresh_tokens')
        .set({ grace_sealed: null, grace_until: null })
        .where('grace_until', '<', before)
        .execute();
      // Their tokens go with them (ON DELETE CASCADE).
      const result = await trx
        .deleteFrom('refresh_families')
        .where((eb) => eb.or([eb('expires_at', '<', before), eb('revoked_at', '<', before)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }
}

/** Ends every live family of the user (inside the caller's transaction, if any); returns how many. */
export async function revokeLiveFamilies(db: Kysely<Database>, userId: number, now: number): Promise<number> {
  const result = await db
    .updateTable('refresh_families')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The token and its family in one read (one snapshot on PostgreSQL). */
async function findWithFamily(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ token: RefreshTokenRecord; family: RefreshFamily } | null> {
  const row = await db
    .selectFrom('refresh_tokens as t')
    .innerJoin('refresh_families as f', 'f.id', 't.family_id')
    .select([
      't.id',
      't.family_id',
      't.parent_id',
      't.token_hash',
      't.created_at',
      't.used_at',
      't.grace_sealed',
      't.grace_until',
      'f.user_id as family_user_id',
      'f.security_stamp as family_security_stamp',
      'f.created_at as family_created_at',
      'f.expires_at as family_expires_at',
      'f.revoked_at as family_revoked_at',
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    token: toToken(row),
    family: toFamily({
      id: row.family_id,
      user_id: row.family_user_id,
      security_stamp: row.family_security_stamp,
      created_at: row.family_created_at,
      expires_at: row.family_expires_at,
      revoked_at: row.family_revoked_at,
    }),
  };
}

// Ids are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.

function toFamily(row: Selectable<RefreshFamiliesTable>): RefreshFamily {
  return {
    id: Number(row.id),
    userId: row.user_id,
    securityStamp: row.security_stamp,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function toToken(row: Selectable<RefreshTokensTable>): RefreshTokenRecord {
  return {
    id: Number(row.id),
    familyId: Number(row.family_id),
    parentId: row.parent_id === null ? null : Number(row.parent_id),
    tokenHash: row.token_hash,
    createdAt: row.created_at,
    usedAt: row.used_at,
    graceSealed: row.grace_sealed,
    graceUntil: row.grace_until,
  };
}
