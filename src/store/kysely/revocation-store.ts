import type { Kysely } from 'kysely';
import type { RevocationEvent, RevocationStore } from '../ports.ts';
import type { Database } from './database.ts';
import type { StoreContext } from './store-context.ts';

/**
 * The revocation feed. Events are appended only by the stores whose writes they describe, with
 * `appendRevocations` inside the same transaction: a change commits with its event or not at all.
 */
export class KyselyRevocationStore implements RevocationStore {
  constructor(private readonly context: StoreContext) {}

  async listSince(since: number): Promise<RevocationEvent[]> {
    const rows = await this.context.db
      .selectFrom('revocations')
      .selectAll()
      .where('at', '>=', since)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      // bigint in PostgreSQL; the pool parses int8 to number.
      id: Number(row.id),
      kind: row.kind as RevocationEvent['kind'],
      subject: row.subject,
      claimsStamp: row.claims_stamp,
      securityStamp: row.security_stamp,
      at: row.at,
    }));
  }

  async prune(before: number): Promise<number> {
    const result = await this.context.db.deleteFrom('revocations').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

/** An event as a write describes it; `claimsStamp` and `securityStamp` only for `user`. */
export type NewRevocation =
  | { readonly kind: 'user'; readonly subject: string; readonly claimsStamp: number; readonly securityStamp: number; readonly at: number }
  | { readonly kind: 'user-deleted' | 'session' | 'family' | 'api-key' | 'signing-key'; readonly subject: string; readonly at: number };

/** Appends events to the feed; call it with the transaction of the change the events describe. */
export async function appendRevocations(trx: Kysely<Database>, events: readonly NewRevocation[]): Promise<void> {
  if (events.length === 0) return;
  await trx
    .insertInto('revocations')
    .values(
      events.map((event) => ({
        kind: event.kind,
        subject: event.subject,
        claims_stamp: event.kind === 'user' ? event.claimsStamp : null,
        security_stamp: event.kind === 'user' ? event.securityStamp : null,
        at: event.at,
      })),
    )
    .execute();
}
