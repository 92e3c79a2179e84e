import type { Selectable } from 'kysely';
import type { ApiKeyClientSummary, ApiKeyRecord, ApiKeyStore } from '../ports.ts';
import type { ApiKeysTable } from './database.ts';
import { appendRevocations } from './revocation-store.ts';
import type { StoreContext } from './store-context.ts';

/** API keys: only the hash of the secret part is stored; keys are revoked, never deleted. */
export class KyselyApiKeyStore implements ApiKeyStore {
  constructor(private readonly context: StoreContext) {}

  async create(key: { client: string; publicId: string; secretHash: string; createdAt: number }): Promise<ApiKeyRecord> {
    const row = await this.context.db
      .insertInto('api_keys')
      .values({ client: key.client, public_id: key.publicId, secret_hash: key.secretHash, created_at: key.createdAt })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  async findByPublicId(publicId: string): Promise<ApiKeyRecord | null> {
    const row = await this.context.db.selectFrom('api_keys').selectAll().where('public_id', '=', publicId).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async listClients(): Promise<ApiKeyClientSummary[]> {
    const rows = await this.context.db
      .selectFrom('api_keys')
      .select((eb) => [
        'client',
        eb.fn.sum<number>(eb.case().when('revoked_at', 'is', null).then(1).else(0).end()).as('activeKeys'),
        eb.fn.min('created_at').as('createdAt'),
      ])
      .groupBy('client')
      .orderBy('client')
      .execute();
    // PostgreSQL sums into bigint; the pool parses int8 to number, Number() settles the type.
    return rows.map((row) => ({ client: row.client, activeKeys: Number(row.activeKeys), createdAt: Number(row.createdAt) }));
  }

  async revokeClient(client: string, revokedAt: number): Promise<number> {
    return this.context.transaction(async (trx) => {
      const revoked = await trx
        .updateTable('api_keys')
        .set({ revoked_at: revokedAt })
        .where('client', '=', client)
        .where('revoked_at', 'is', null)
        .returning(['id', 'public_id'])
        .execute();
      const at = this.context.clock.now();
      await appendRevocations(
        trx,
        revoked
          .sort((a, b) => a.id - b.id)
          .map((key) => ({ kind: 'api-key' as const, subject: key.public_id, at })),
      );
      return revoked.length;
    });
  }
}

function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    client: row.client,
    publicId: row.public_id,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
