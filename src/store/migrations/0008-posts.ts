import type { Kysely } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import { autoId, idType } from './columns.ts';

/** Posts of the GraphQL API (docs/reference/graphql.md): newest first, and by author for `User.posts`. */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('posts')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Newest first is by id: ids only grow, and two posts of one millisecond keep their order.
  await db.schema.createIndex('posts_author_index').on('posts').columns(['author_id', 'id']).execute();
}

export async function down(db: AnyDatabase): Promise<void> {
  await db.schema.dropTable('posts').ifExists().execute();
}
