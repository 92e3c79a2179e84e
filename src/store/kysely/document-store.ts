import type { Document, DocumentStore } from '../ports.ts';
import type { StoreContext } from './store-context.ts';

/** Documents owned by a user; they go when the owner is deleted (ON DELETE CASCADE). */
export class KyselyDocumentStore implements DocumentStore {
  constructor(private readonly context: StoreContext) {}

  async create(document: { ownerId: number; title: string; body: string; createdAt: number }): Promise<Document> {
    return this.context.db
      .insertInto('documents')
      .values({ owner_id: document.ownerId, title: document.title, body: document.body, created_at: document.createdAt })
      .returning(['id', 'owner_id as ownerId', 'title', 'body'])
      .executeTakeFirstOrThrow();
  }

  async find(id: number): Promise<Document | null> {
    const row = await this.context.db
      .selectFrom('documents')
      .select(['id', 'owner_id as ownerId', 'title', 'body'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ?? null;
  }

  async update(id: number, changes: { title: string; body: string }): Promise<Document | null> {
    const row = await this.context.db
      .updateTable('documents')
      .set({ title: changes.title, body: changes.body })
      .where('id', '=', id)
      .returning(['id', 'owner_id as ownerId', 'title', 'body'])
      .executeTakeFirst();
    return row ?? null;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.context.db.deleteFrom('documents').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
