import type { Kysely, Selectable } from 'kysely';
import type { NewRefreshFamily, RefreshFamily, RefreshTokenRecord, RefreshTokenStore, RotationOutcome, SignInClient, SignInMethod } from '../ports.ts';
import type { Database, RefreshFamiliesTable, RefreshTokensTable } from './database.ts';
import { appendRevocations } from './revocation-store.ts';
import type { StoreContext } from './store-context.ts';

/**
 * Refresh-token families (docs/reference/tokens.md). A family is live while it is neither revoked nor
 * expired (`expires_at > now`); only the unused token of a live family rotates.
 */
export class KyselyRefreshTokenStore implements RefreshTokenStore {
  constructor(private readonly context: StoreContext) {}

  async createFamily(family: NewRefreshFamily): Promise<{ family: RefreshFamily; token: RefreshTokenRecord }> {
    return this.context.transaction(async (trx) => {
      const familyRow = await trx
        .insertInto('refresh_families')
        .values({
          user_id: family.userId,
          security_stamp: family.securityStamp,
          method: family.method ?? null,
          created_at: family.createdAt,
          expires_at: family.expiresAt,
          last_seen_at: family.createdAt,
          user_agent: family.client?.userAgent ?? null,
          ip: family.client?.ip ?? null,
          organization_id: family.organizationId ?? null,
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
    client?: SignInClient;
  }): Promise<RotationOutcome> {
    const { tokenHash, nextHash, now, grace, client } = rotation;
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
        // The refresh is the family's use: "where you are signed in" shows it.
        const family = await trx
          .updateTable('refresh_families')
          .set({ last_seen_at: now, ...(client ? { user_agent: client.userAgent, ip: client.ip } : {}) })
          .where('id', '=', used.family_id)
          .returningAll()
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
    return this.context.transaction(async (trx) => (await revokeFamilies(trx, { ids: [familyId] }, now, this.context.clock.now())).length > 0);
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

/**
 * Ends the live families among `ids` (of `userId` when given), or every live family of `userId`
 * but those of `except`, with a `family` revocation event for each: their access tokens are
 * refused on every instance. Call it inside the transaction of the change; the ids it ended.
 * `now` decides which families are live; the events carry the store's time (`eventAt`), which
 * the revocation feed reads by.
 */
export async function revokeFamilies(
  trx: Kysely<Database>,
  which: { ids: readonly number[]; userId?: number } | { userId: number; except?: readonly number[] },
  now: number,
  eventAt: number,
): Promise<number[]> {
  let query = trx.updateTable('refresh_families').set({ revoked_at: now }).where('revoked_at', 'is', null).where('expires_at', '>', now);
  if ('ids' in which) {
    if (which.ids.length === 0) return [];
    query = query.where('id', 'in', which.ids);
  }
  if (which.userId !== undefined) query = query.where('user_id', '=', which.userId);
  if ('except' in which && which.except !== undefined && which.except.length > 0) query = query.where('id', 'not in', which.except);
  const ended = (await query.returning('id').execute()).map((row) => Number(row.id));
  await appendRevocations(
    trx,
    ended.map((id) => ({ kind: 'family', subject: String(id), at: eventAt })),
  );
  return ended;
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
      'f.method as family_method',
      'f.created_at as family_created_at',
      'f.expires_at as family_expires_at',
      'f.revoked_at as family_revoked_at',
      'f.last_seen_at as family_last_seen_at',
      'f.user_agent as family_user_agent',
      'f.ip as family_ip',
      'f.organization_id as family_organization_id',
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
      method: row.family_method,
      created_at: row.family_created_at,
      expires_at: row.family_expires_at,
      revoked_at: row.family_revoked_at,
      last_seen_at: row.family_last_seen_at,
      user_agent: row.family_user_agent,
      ip: row.family_ip,
      organization_id: row.family_organization_id,
    }),
  };
}

// Ids are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.

export function toFamily(row: Selectable<RefreshFamiliesTable>): RefreshFamily {
  return {
    id: Number(row.id),
    userId: row.user_id,
    securityStamp: row.security_stamp,
    method: row.method as SignInMethod | null,
    organizationId: row.organization_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastSeenAt: Number(row.last_seen_at ?? row.created_at),
    userAgent: row.user_agent,
    ip: row.ip,
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
