import type { AuditEvent, AuditStore } from '../ports.ts';
import type { StoreContext } from './store-context.ts';

/** The security-event log: append-only, read newest first by id. */
export class KyselyAuditStore implements AuditStore {
  constructor(private readonly context: StoreContext) {}

  async append(event: Omit<AuditEvent, 'id'>): Promise<void> {
    await this.context.db
      .insertInto('audit')
      .values({
        type: event.type,
        user_id: event.userId,
        at: event.at,
        ip: event.ip,
        detail: event.detail === null ? null : JSON.stringify(event.detail),
      })
      .execute();
  }

  async list(page: { limit: number; before?: number }): Promise<AuditEvent[]> {
    const rows = await this.context.db
      .selectFrom('audit')
      .selectAll()
      .$if(page.before !== undefined, (q) => q.where('id', '<', page.before ?? 0))
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
