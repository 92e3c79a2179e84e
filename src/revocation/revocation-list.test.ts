/**
 * RevocationList: what one instance knows of recent revocations (docs/reference/tokens.md). A security
 * change and a claims change both raise the claims stamp (older access tokens are refused); only a
 * security change raises the security stamp (sessions and sockets end); a deletion refuses all.
 */
import { describe, expect, it } from 'vitest';
import type { RevocationEvent } from '../store/ports.ts';
import { REVOCATION_FRESHNESS_MS, RevocationList } from './revocation-list.ts';
import { RevocationsStaleError } from './revocations-stale-error.ts';

let nextId = 1;

function userEvent(userId: number, claimsStamp: number, securityStamp: number, at = 1_000, id = nextId++): RevocationEvent {
  return { id, kind: 'user', subject: String(userId), claimsStamp, securityStamp, at };
}

function deletion(userId: number, at = 1_000, id = nextId++): RevocationEvent {
  return { id, kind: 'user-deleted', subject: String(userId), claimsStamp: null, securityStamp: null, at };
}

function other(kind: 'api-key' | 'signing-key' | 'family', subject: string, at = 1_000, id = nextId++): RevocationEvent {
  return { id, kind, subject, claimsStamp: null, securityStamp: null, at };
}

describe('RevocationList', () => {
  it('accepts every stamp of a user it has heard nothing about', () => {
    const list = new RevocationList();
    list.apply(userEvent(1, 5, 5));
    for (const stamp of [0, 1, 100]) {
      expect(list.refusesAccessToken(2, stamp)).toBe(false);
      expect(list.refusesSecurityStamp(2, stamp)).toBe(false);
    }
  });

  it('refuses an access token whose stamp is below the known claims stamp, and accepts one at or above it', () => {
    const list = new RevocationList();
    list.apply(userEvent(7, 3, 1));
    expect(list.refusesAccessToken(7, 0)).toBe(true);
    expect(list.refusesAccessToken(7, 2)).toBe(true);
    expect(list.refusesAccessToken(7, 3)).toBe(false);
    expect(list.refusesAccessToken(7, 4)).toBe(false);
  });

  it('only lets stamps grow: an older event applied after a newer one lowers nothing', () => {
    const list = new RevocationList();
    list.apply(userEvent(7, 5, 4));
    list.apply(userEvent(7, 2, 1));
    expect(list.refusesAccessToken(7, 4)).toBe(true);
    expect(list.refusesAccessToken(7, 5)).toBe(false);
    expect(list.refusesSecurityStamp(7, 3)).toBe(true);
    expect(list.refusesSecurityStamp(7, 4)).toBe(false);
    list.apply(userEvent(7, 6, 4));
    expect(list.refusesAccessToken(7, 5)).toBe(true);
    // The security stamp stayed where it was.
    expect(list.refusesSecurityStamp(7, 4)).toBe(false);
  });

  it('keeps the security-stamp check apart from the claims stamp: a claims change ends no session', () => {
    const list = new RevocationList();
    // A claims change: the claims stamp moves on, the security stamp stays at 1.
    list.apply(userEvent(3, 4, 1));
    expect(list.refusesAccessToken(3, 3)).toBe(true);
    expect(list.refusesSecurityStamp(3, 1)).toBe(false);
    expect(list.refusesSecurityStamp(3, 3)).toBe(false);
    // A security change moves both.
    list.apply(userEvent(3, 5, 2));
    expect(list.refusesSecurityStamp(3, 1)).toBe(true);
    expect(list.refusesSecurityStamp(3, 2)).toBe(false);
    expect(list.refusesAccessToken(3, 4)).toBe(true);
    expect(list.refusesAccessToken(3, 5)).toBe(false);
  });

  it('refuses every stamp of a deleted user, for tokens and for sessions, and a later stamp event does not revive it', () => {
    const list = new RevocationList();
    list.apply(deletion(9));
    for (const stamp of [0, 1, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(list.refusesAccessToken(9, stamp)).toBe(true);
      expect(list.refusesSecurityStamp(9, stamp)).toBe(true);
    }
    list.apply(userEvent(9, 50, 50));
    expect(list.refusesAccessToken(9, 50)).toBe(true);
    expect(list.refusesSecurityStamp(9, 50)).toBe(true);
    // Another user is untouched.
    expect(list.refusesAccessToken(10, 0)).toBe(false);
  });

  it('ignores API-key and signing-key events for users (their subjects are no user ids)', () => {
    const list = new RevocationList();
    list.apply(other('api-key', '4'));
    list.apply(other('signing-key', '4'));
    expect(list.refusesAccessToken(4, 0)).toBe(false);
    expect(list.refusesSecurityStamp(4, 0)).toBe(false);
  });

  it('refuses the access tokens of an ended refresh family, no other family, and no user (a family id is no user id)', () => {
    const list = new RevocationList();
    list.apply(other('family', '12', 5_000));
    expect(list.refusesFamily(12)).toBe(true);
    expect(list.refusesFamily(13)).toBe(false);
    expect(list.refusesAccessToken(12, 0)).toBe(false);
    expect(list.refusesSecurityStamp(12, 0)).toBe(false);
  });

  it('forgets an ended family once its access tokens have expired (the bound the feed passes), and no sooner', () => {
    const list = new RevocationList();
    list.apply(other('family', '1', 5_000));
    list.apply(other('family', '2', 9_000));
    list.forgetFamiliesEndedBefore(5_000);
    expect([list.refusesFamily(1), list.refusesFamily(2)]).toEqual([true, true]);
    list.forgetFamiliesEndedBefore(6_000);
    expect([list.refusesFamily(1), list.refusesFamily(2)]).toEqual([false, true]);
  });

  it('tells each listener once per event id, even when the event is applied twice, and every kind of event', () => {
    const list = new RevocationList();
    const first: number[] = [];
    const second: string[] = [];
    list.onEvent((event) => first.push(event.id));
    list.onEvent((event) => second.push(event.kind));
    const events = [userEvent(1, 2, 1), deletion(2), other('api-key', 'abc'), other('signing-key', 'kid-1')];
    for (const event of events) list.apply(event);
    for (const event of events) list.apply({ ...event });
    expect(first).toEqual(events.map((event) => event.id));
    expect(second).toEqual(['user', 'user-deleted', 'api-key', 'signing-key']);
  });

  it('stops telling a listener once it unsubscribes', () => {
    const list = new RevocationList();
    const seen: number[] = [];
    const stop = list.onEvent((event) => seen.push(event.id));
    const before = userEvent(1, 2, 1);
    list.apply(before);
    stop();
    list.apply(userEvent(1, 3, 1));
    expect(seen).toEqual([before.id]);
  });

  it('forgetAppliedBefore forgets only ids of events older than the bound, so only those are told again', () => {
    const list = new RevocationList();
    const seen: number[] = [];
    list.onEvent((event) => seen.push(event.id));
    const old = userEvent(1, 2, 1, 1_000);
    const atBound = userEvent(2, 2, 1, 2_000);
    const recent = userEvent(3, 2, 1, 3_000);
    for (const event of [old, atBound, recent]) list.apply(event);
    expect(seen).toEqual([old.id, atBound.id, recent.id]);

    list.forgetAppliedBefore(2_000);
    for (const event of [old, atBound, recent]) list.apply(event);
    expect(seen).toEqual([old.id, atBound.id, recent.id, old.id]);
    // Forgetting an id forgets no stamp.
    expect(list.refusesAccessToken(1, 1)).toBe(true);
    expect(list.refusesAccessToken(2, 1)).toBe(true);
  });
});

describe('RevocationList freshness', () => {
  /** A list on a monotonic clock the test moves. */
  function listAt(start = 0) {
    let now = start;
    const list = new RevocationList(() => now);
    return { list, advance: (ms: number) => (now += ms), now: () => now };
  }

  it('vouches for itself while no feed keeps it', () => {
    const { list, advance } = listAt();
    advance(60_000);
    expect(list.stale).toBe(false);
    expect(() => list.assertCurrent()).not.toThrow();
  });

  it('is stale once a feed follows it, until its first read, and again 5 s after its last', () => {
    const { list, advance, now } = listAt(1_000);
    list.followFeed();
    expect(list.stale).toBe(true);
    expect(() => list.assertCurrent()).toThrow(RevocationsStaleError);
    list.caughtUp(now());
    advance(REVOCATION_FRESHNESS_MS);
    expect(list.stale).toBe(false);
    advance(1);
    expect(list.stale).toBe(true);
    list.caughtUp(now());
    expect(list.stale).toBe(false);
  });

  it('tells its stale listeners once per spell', () => {
    const { list, advance, now } = listAt();
    list.followFeed();
    list.caughtUp(now());
    let told = 0;
    const stop = list.onStale(() => told++);
    expect(list.noticeStaleness()).toBe(false);
    advance(REVOCATION_FRESHNESS_MS + 1);
    expect(list.noticeStaleness()).toBe(true);
    expect(list.noticeStaleness()).toBe(false);
    expect(told).toBe(1);
    list.caughtUp(now());
    advance(REVOCATION_FRESHNESS_MS + 1);
    list.noticeStaleness();
    expect(told).toBe(2);
    stop();
    list.caughtUp(now());
    advance(REVOCATION_FRESHNESS_MS + 1);
    list.noticeStaleness();
    expect(told).toBe(2);
  });
});
