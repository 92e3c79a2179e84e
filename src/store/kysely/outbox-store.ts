import type { Selectable } from 'kysely';
import type { OutboxMessage, OutboxStore } from '../ports.ts';
import type { OutboxTable } from './database.ts';
import type { StoreContext } from './store-context.ts';

/** How many messages `list` returns when the caller names no limit. */
const DEFAULT_LIMIT = 100;

/** The dev outbox: append-only, read newest first by id. */
export class KyselyOutboxStore implements OutboxStore {
  constructor(private readonly context: StoreContext) {}

  async append(message: Omit<OutboxMessage, 'id'>): Promise<OutboxMessage> {
    const row = await this.context.db
      .insertInto('outbox')
      .values({
        channel: message.channel,
        recipient: message.recipient,
        subject: message.subject,
        text: message.text,
        html: message.html,
        created_at: message.createdAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toMessage(row);
  }

  async list(query: { recipient?: string; limit?: number } = {}): Promise<OutboxMessage[]> {
    const { recipient } = query;
    const rows = await this.context.db
      .selectFrom('outbox')
      .selectAll()
      .$if(recipient !== undefined, (q) => q.where('recipient', '=', recipient ?? ''))
      .orderBy('id', 'desc')
      .limit(query.limit ?? DEFAULT_LIMIT)
      .execute();
    return rows.map(toMessage);
  }
}

function toMessage(row: Selectable<OutboxTable>): OutboxMessage {
  return {
    // The id is bigint in PostgreSQL; the pool parses int8 to number.
    id: Number(row.id),
    channel: row.channel,
    recipient: row.recipient,
    subject: row.subject,
    text: row.text,
    html: row.html,
    createdAt: Number(row.created_at),
  };
}
