import type { Selectable } from 'kysely';
import type { ApiKeyClientSummary, ApiKeyRecord, ApiKeyStore } from '../ports.ts';
import type { ApiKeysTable } from './database.ts';
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
    const result = await this.context.db
      .updateTable('api_keys')
      .set({ revoked_at: revokedAt })
      .where('client', '=', client)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async listRevokedSince(sinceMs: number): Promise<string[]> {
    const rows = await this.context.db
      .selectFrom('api_keys')
      .select('public_id')
      .where('revoked_at', '>', sinceMs)
      .orderBy('revoked_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => row.public_id);
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
