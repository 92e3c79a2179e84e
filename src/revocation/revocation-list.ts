import type { RevocationEvent } from '../store/ports.ts';

interface UserStamps {
  claimsStamp: number;
  securityStamp: number;
  deleted: boolean;
  /** When the newest event about the user happened. */
  changedAt: number;
}

/**
 * What this instance knows of recent revocations: the newest stamps of users that changed, the
 * users deleted, and listeners (caches) told of every event once. Filled by `RevocationFeed`
 * from the store, so changes made by other instances and by the CLI count the same.
 */
export class RevocationList {
  private readonly users = new Map<number, UserStamps>();
  /** Refresh families ended, with when: their access tokens are refused until they have expired. */
  private readonly families = new Map<number, number>();
  private readonly listeners = new Set<(event: RevocationEvent) => void>();
  /** Ids of events already applied, with their time, so that overlapping polls apply each once. */
  private readonly applied = new Map<number, number>();

  apply(event: RevocationEvent): void {
    if (this.applied.has(event.id)) return;
    this.applied.set(event.id, event.at);
    if (event.kind === 'user' || event.kind === 'user-deleted') this.applyToUser(Number(event.subject), event);
    if (event.kind === 'family') this.families.set(Number(event.subject), event.at);
    for (const listener of this.listeners) listener(event);
  }

  /** An access token of `userId` carrying claims stamp `stamp` was issued before a change that ends it. */
  refusesAccessToken(userId: number, stamp: number): boolean {
    const known = this.users.get(userId);
    return known !== undefined && (known.deleted || stamp < known.claimsStamp);
  }

  /** An access token issued from refresh family `familyId` is refused: the family has ended. */
  refusesFamily(familyId: number): boolean {
    return this.families.has(familyId);
  }

  /** A session or socket of `userId` begun at security stamp `stamp` was ended by a security change. */
  refusesSecurityStamp(userId: number, stamp: number): boolean {
    const known = this.users.get(userId);
    return known !== undefined && (known.deleted || stamp < known.securityStamp);
  }

  /** Calls `listener` for every event applied from now on; returns the way to stop. */
  onEvent(listener: (event: RevocationEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets applied-event ids older than `before` (they can no longer come back in a poll). */
  forgetAppliedBefore(before: number): void {
    for (const [id, at] of this.applied) if (at < before) this.applied.delete(id);
  }

  /**
   * Forgets users whose last change is older than `before`: every credential issued before that
   * change has expired since (the feed passes the access-token lifetime), so nothing is left to refuse.
   */
  forgetUsersChangedBefore(before: number): void {
    for (const [userId, known] of this.users) if (known.changedAt < before) this.users.delete(userId);
  }

  /** Forgets families that ended before `before`, for the same reason: their access tokens have expired since. */
  forgetFamiliesEndedBefore(before: number): void {
    for (const [familyId, at] of this.families) if (at < before) this.families.delete(familyId);
  }

  private applyToUser(userId: number, event: RevocationEvent): void {
    const known = this.users.get(userId) ?? { claimsStamp: 0, securityStamp: 0, deleted: false, changedAt: event.at };
    known.changedAt = Math.max(known.changedAt, event.at);
    if (event.kind === 'user-deleted') known.deleted = true;
    known.claimsStamp = Math.max(known.claimsStamp, event.claimsStamp ?? 0);
    known.securityStamp = Math.max(known.securityStamp, event.securityStamp ?? 0);
    this.users.set(userId, known);
  }
}
