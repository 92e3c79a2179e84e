import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { EventOutboxStore, StoredEvent } from './event-outbox-store.ts';
import type { PostsTable, ServiceTables } from './service-tables.ts';

export interface Post {
  readonly id: number;
  readonly authorId: number;
  readonly title: string;
  readonly body: string;
  readonly createdAt: number;
}

/** The topic of the event every new post is written with. */
export const POST_CREATED = 'postCreated';

/** Runs `work` as one transaction (`ApplicationDatabase.transaction`). */
export type Transaction = <T>(work: (trx: Kysely<ServiceTables>) => Promise<T>) => Promise<T>;

/** Posts of the GraphQL API, newest first (by id). */
export class PostStore {
  /** The SQL of `list`, built once: Kysely's building and compiling cost about as much as SQLite's run of it. */
  private newestSql: string | undefined;

  constructor(
    private readonly db: Kysely<ServiceTables>,
    private readonly transaction: Transaction,
    private readonly outbox: EventOutboxStore,
  ) {}

  /** The post and its `postCreated` event (the post as its payload), written in one transaction. */
  async create(post: Omit<Post, 'id'>): Promise<{ post: Post; event: StoredEvent }> {
    return this.transaction(async (trx) => {
      const row = await trx
        .insertInto('posts')
        .values({ author_id: post.authorId, title: post.title, body: post.body, created_at: post.createdAt })
        .returningAll()
        .executeTakeFirstOrThrow();
      const created = toPost(row);
      const event = await this.outbox.add(trx, { topic: POST_CREATED, payload: created, createdAt: post.createdAt });
      return { post: created, event };
    });
  }

  async findById(id: number): Promise<Post | null> {
    const row = await this.db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toPost(row) : null;
  }

  /** The newest `limit` posts. */
  async list(limit: number): Promise<Post[]> {
    this.newestSql ??= this.compileNewest();
    const { rows } = await this.db.executeQuery(CompiledQuery.raw(this.newestSql, [limit]) as CompiledQuery<Selectable<PostsTable>>);
    return rows.map(toPost);
  }

  private compileNewest(): string {
    const { sql, parameters } = this.db.selectFrom('posts').selectAll().orderBy('id', 'desc').limit(1).compile();
    // The limit must be the statement's only parameter, bound afresh on each run.
    if (parameters.length !== 1 || parameters[0] !== 1) throw new Error(`PostStore: unexpected parameters for the newest posts: ${JSON.stringify(parameters)}`);
    return sql;
  }

  /** The newest `limit` posts of each author, in one query whatever the number of authors. */
  async listByAuthors(authorIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    const byAuthor = new Map<number, Post[]>(authorIds.map((id) => [id, []]));
    if (authorIds.length === 0) return byAuthor;
    // One query for every author: each author's newest `limit`, numbered by a window function.
    const rows = await this.db
      .selectFrom((db) =>
        db
          .selectFrom('posts')
          .selectAll()
          .select((eb) => eb.fn.agg<number>('row_number').over((over) => over.partitionBy('author_id').orderBy('id', 'desc')).as('position'))
          .where('author_id', 'in', [...authorIds])
          .as('ranked'),
      )
      .selectAll()
      .where('position', '<=', limit)
      .orderBy('id', 'desc')
      .execute();
    for (const row of rows) byAuthor.get(row.author_id)?.push(toPost(row));
    return byAuthor;
  }

  /** The changed post, or null when there is none. */
  async update(id: number, change: { title?: string; body?: string }): Promise<Post | null> {
    const set = { ...(change.title !== undefined ? { title: change.title } : {}), ...(change.body !== undefined ? { body: change.body } : {}) };
    if (Object.keys(set).length === 0) return this.findById(id);
    const row = await this.db.updateTable('posts').set(set).where('id', '=', id).returningAll().executeTakeFirst();
    return row ? toPost(row) : null;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('posts').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function toPost(row: Selectable<PostsTable>): Post {
  return { id: Number(row.id), authorId: row.author_id, title: row.title, body: row.body, createdAt: Number(row.created_at) };
}
