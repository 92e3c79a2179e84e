import type { AuditEvent, AuditQuery, AuditStore } from '../store/ports.ts';

/** One page of the security events, newest first. */
export interface AuditPage {
  readonly events: readonly AuditEvent[];
  /** The id to pass as `before` for the next page, or null when this is the last. */
  readonly next: number | null;
}

/** The security events (docs/reference/security-events.md) as `GET /admin/audit` and the application read them. */
export class AuditTrail {
  constructor(private readonly store: AuditStore) {}

  /**
   * Up to `limit` events with ids below `before` (all when omitted), newest first; only those of
   * the `type`, of the `userId` and at `from` or after, before `to`, for each filter given.
   */
  async page(query: AuditQuery): Promise<AuditPage> {
    const { limit } = query;
    // One more than asked tells whether another page exists.
    const rows = await this.store.list({ ...query, limit: limit + 1 });
    const events = rows.slice(0, limit);
    return { events, next: rows.length > limit ? events[events.length - 1]!.id : null };
  }
}
