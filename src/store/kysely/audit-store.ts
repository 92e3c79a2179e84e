import type { Kysely } from 'kysely';
import type { AuditEvent, AuditQuery, AuditStore } from '../ports.ts';
import type { Database } from './database.ts';
import { ReusableQuery } from './reusable-query.ts';
import type { StoreContext } from './store-context.ts';

type AuditRow = { type: string; userId: number | null; at: number; ip: string | null; detail: string | null };

/** The security-event log: append-only, read newest first by id. */
export class KyselyAuditStore implements AuditStore {
  /** Compiled once: every sign-in appends. */
  private readonly insert = new ReusableQuery((db: Kysely<Database>, p: AuditRow) =>
    db.insertInto('audit').values({ type: p.type, user_id: p.userId, at: p.at, ip: p.ip, detail: p.detail }),
  );

  constructor(private readonly context: StoreContext) {}

  async append(event: Omit<AuditEvent, 'id'>): Promise<void> {
    const { type, userId, at, ip } = event;
    await this.insert.execute(this.context.db, { type, userId, at, ip, detail: event.detail === null ? null : JSON.stringify(event.detail) });
  }

  async list(page: AuditQuery): Promise<AuditEvent[]> {
    const { before, type, userId, from, to } = page;
    const rows = await this.context.db
      .selectFrom('audit')
      .selectAll()
      .$if(before !== undefined, (q) => q.where('id', '<', before ?? 0))
      .$if(type !== undefined, (q) => q.where('type', '=', type ?? ''))
      .$if(userId !== undefined, (q) => q.where('user_id', '=', userId ?? 0))
      .$if(from !== undefined, (q) => q.where('at', '>=', from ?? 0))
      .$if(to !== undefined, (q) => q.where('at', '<', to ?? 0))
      .orderBy('id', 'desc')
      .limit(page.limit)
      .execute();
    return rows.map((row) => ({
      // The id is bigint in PostgreSQL; the pool parses int8 to number.
      id: Number(row.id),
      type: row.type,
      userId: row.user_id,
      at: row.at,
      ip: row.ip,
      detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
    }));
  }
}
