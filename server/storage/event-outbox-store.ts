import type { Kysely, Selectable } from 'kysely';
import type { EventOutboxTable, ServiceTables } from './service-tables.ts';

/** An event as the outbox keeps it: its id is what subscribers tell a repeat by. */
export interface StoredEvent {
  readonly id: number;
  readonly topic: string;
  /** Plain data, stored as JSON. */
  readonly payload: unknown;
  readonly createdAt: number;
}

/**
 * The service's event outbox (decision 0053): `add` inside the transaction of the change the
 * event announces; after the commit the writer publishes it and `markPublished`; a relay
 * `claimUnpublished` what a killed instance left, publishes it and marks it.
 */
export class EventOutboxStore {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Writes the event through `trx`, the transaction of the change it announces. */
  async add(trx: Kysely<ServiceTables>, event: Omit<StoredEvent, 'id'>): Promise<StoredEvent> {
    const row = await trx
      .insertInto('event_outbox')
      .values({ topic: event.topic, payload: JSON.stringify(event.payload), created_at: event.createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { ...event, id: Number(row.id) };
  }

  async markPublished(ids: readonly number[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('event_outbox').set({ published_at: at }).where('id', 'in', [...ids]).execute();
  }

  /**
   * Up to `limit` events written before `createdBefore` and still unpublished, oldest first, each
   * claimed for this caller until `claimUntil`. The claim is a conditional UPDATE, so that of two
   * relays at once each event goes to one: on SQLite it runs alone; on PostgreSQL an UPDATE that
   * waited for another's re-checks the row and passes over what the other claimed. A claim that ran
   * out (its relay died) is taken again. A plain SELECT first, so that a pass with nothing to do
   * writes nothing (on SQLite every write would move the data version the GraphQL cache follows).
   */
  async claimUnpublished({ createdBefore, now, claimUntil, limit }: { createdBefore: number; now: number; claimUntil: number; limit: number }): Promise<StoredEvent[]> {
    const candidates = await this.db
      .selectFrom('event_outbox')
      .select('id')
      .where('published_at', 'is', null)
      .where('created_at', '<', createdBefore)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
      .orderBy('id')
      .limit(limit)
      .execute();
    if (candidates.length === 0) return [];
    const rows = await this.db
      .updateTable('event_outbox')
      .set({ claimed_until: claimUntil })
      .where('id', 'in', candidates.map((row) => Number(row.id)))
      .where('published_at', 'is', null)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
      .returningAll()
      .execute();
    return rows.map(toEvent).sort((a, b) => a.id - b.id);
  }

  /** Housekeeping: deletes events published before `before`. */
  async prunePublished(before: number): Promise<number> {
    const result = await this.db.deleteFrom('event_outbox').where('published_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toEvent(row: Selectable<EventOutboxTable>): StoredEvent {
  return { id: Number(row.id), topic: row.topic, payload: JSON.parse(row.payload) as unknown, createdAt: Number(row.created_at) };
}
