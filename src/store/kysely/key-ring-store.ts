import type { Kysely, Selectable } from 'kysely';
import type { KeyRingStore, SigningKeyRecord } from '../ports.ts';
import type { Database, SigningKeysTable } from './database.ts';
import { appendRevocations } from './revocation-store.ts';
import type { StoreContext } from './store-context.ts';

/** The ring's row id: the table holds one row, and its primary key settles who created it. */
const RING_ID = 1;

/** The key ring's sealed secrets and its signing keys. */
export class KyselyKeyRingStore implements KeyRingStore {
  constructor(private readonly context: StoreContext) {}

  async createRingIfAbsent(ring: { secrets: string; firstKey: SigningKeyRecord; createdAt: number }): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      // ON CONFLICT DO NOTHING: a concurrent creator's uncommitted row makes this wait for its
      // commit, then insert nothing; exactly one caller sees a row inserted.
      const result = await trx
        .insertInto('key_ring')
        .values({ id: RING_ID, secrets: ring.secrets, created_at: ring.createdAt })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
      await insertSigningKey(trx, ring.firstKey);
      return true;
    });
  }

  async loadSecrets(): Promise<string | null> {
    const row = await this.context.db.selectFrom('key_ring').select('secrets').where('id', '=', RING_ID).executeTakeFirst();
    return row?.secrets ?? null;
  }

  async listActiveSigningKeys(): Promise<SigningKeyRecord[]> {
    const rows = await this.context.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .orderBy('kid')
      .execute();
    return rows.map(toRecord);
  }

  async addSigningKey(key: SigningKeyRecord): Promise<void> {
    await insertSigningKey(this.context.db, key);
  }

  async revokeSigningKey(kid: string, revokedAt: number): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      const result = await trx
        .updateTable('signing_keys')
        .set({ revoked_at: revokedAt })
        .where('kid', '=', kid)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await appendRevocations(trx, [{ kind: 'signing-key', subject: kid, at: this.context.clock.now() }]);
      return true;
    });
  }
}

async function insertSigningKey(db: Kysely<Database>, key: SigningKeyRecord): Promise<void> {
  await db
    .insertInto('signing_keys')
    .values({
      kid: key.kid,
      alg: key.alg,
      public_jwk: key.publicJwk,
      private_jwk: key.privateJwk,
      created_at: key.createdAt,
      revoked_at: key.revokedAt,
    })
    .execute();
}

function toRecord(row: Selectable<SigningKeysTable>): SigningKeyRecord {
  return {
    kid: row.kid,
    alg: row.alg,
    publicJwk: row.public_jwk,
    privateJwk: row.private_jwk,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
