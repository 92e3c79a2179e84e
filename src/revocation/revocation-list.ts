import { performance } from 'node:perf_hooks';
import type { RevocationEvent } from '../store/ports.ts';
import { RevocationsStaleError } from './revocations-stale-error.ts';

/**
 * How old this instance's view of revocations may be (docs/reference/tokens.md: a change reaches
 * every instance within 5 seconds). Past it, credentials vouched for from memory are refused.
 */
export const REVOCATION_FRESHNESS_MS = 5_000;

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
  /**
   * When (on `monotonicNow`) the feed's last successful read began: everything committed before
   * is known. Undefined while no feed keeps the list (filled by hand): it then vouches for itself.
   */
  private caughtUpAt: number | undefined;
  private readonly staleListeners = new Set<() => void>();
  private staleTold = false;

  /**
   * @param monotonicNow the time freshness is measured by: monotonic, so that neither a wall-clock
   * jump nor a test's manual clock makes the view look fresher or staler than it is.
   */
  constructor(readonly monotonicNow: () => number = () => performance.now()) {}

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

  /** From now on the list is only as current as its feed's reads: stale until the first one succeeds. */
  followFeed(): void {
    this.caughtUpAt ??= Number.NEGATIVE_INFINITY;
  }

  /** The feed has applied every event committed before `at` (a `monotonicNow` reading taken as its read began). */
  caughtUp(at: number): void {
    this.caughtUpAt = Math.max(this.caughtUpAt ?? at, at);
    this.staleTold = false;
  }

  /** Whether the feed's last successful read began longer ago than the contract's bound. */
  get stale(): boolean {
    return this.caughtUpAt !== undefined && this.monotonicNow() - this.caughtUpAt > REVOCATION_FRESHNESS_MS;
  }

  /**
   * Before a credential is accepted from memory alone: throws `RevocationsStaleError` when a
   * revocation made elsewhere may not have reached this instance yet.
   */
  assertCurrent(): void {
    if (this.stale) throw new RevocationsStaleError();
  }

  /** Calls `listener` each time the list becomes stale (once per spell); returns the way to stop. */
  onStale(listener: () => void): () => void {
    this.staleListeners.add(listener);
    return () => this.staleListeners.delete(listener);
  }

  /** Tells the stale listeners, once, when the list has become stale; the feed calls it at every tick. */
  noticeStaleness(): boolean {
    if (!this.stale || this.staleTold) return false;
    this.staleTold = true;
    for (const listener of this.staleListeners) listener();
    return true;
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
