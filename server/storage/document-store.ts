import type { Kysely } from 'kysely';
import type { ServiceTables } from './service-tables.ts';

export interface Document {
  readonly id: number;
  readonly ownerId: number;
  readonly title: string;
  readonly body: string;
}

const columns = ['id', 'owner_id as ownerId', 'title', 'body'] as const;

/** Documents owned by a user; they go when the owner is deleted (the foreign key cascades). */
export class DocumentStore {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  async create(document: { ownerId: number; title: string; body: string; createdAt: number }): Promise<Document> {
    return this.db
      .insertInto('documents')
      .values({ owner_id: document.ownerId, title: document.title, body: document.body, created_at: document.createdAt })
      .returning(columns)
      .executeTakeFirstOrThrow();
  }

  async find(id: number): Promise<Document | null> {
    return (await this.db.selectFrom('documents').select(columns).where('id', '=', id).executeTakeFirst()) ?? null;
  }

  /** Null when there is no such document. */
  async update(id: number, changes: { title: string; body: string }): Promise<Document | null> {
    const row = await this.db
      .updateTable('documents')
      .set({ title: changes.title, body: changes.body })
      .where('id', '=', id)
      .returning(columns)
      .executeTakeFirst();
    return row ?? null;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('documents').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
