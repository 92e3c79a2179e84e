/**
 * UserSessionStore (src/store/ports.ts): a user's cookie sessions and refresh families listed side
 * by side, and ended one at a time or all but some, each ending with its revocation events in the
 * same transaction. Also what the session and family ports record for the list: the sign-in
 * method, the last use and its client.
 */
import { describe, expect, it } from 'vitest';
import type { SignInMethod } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('UserSessionStore on $label', (engine) => {
  const database = useMigratedStore(engine);
  const store = () => database.store;

  let emails = 0;
  const createUser = async () => {
    emails += 1;
    const email = `user${emails}@example.com`;
    const user = await store().users.create({ email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 });
    return user.id;
  };
  const cookie = (userId: number, tokenHash: string, options: { createdAt?: number; expiresAt?: number; method?: SignInMethod | null; ip?: string } = {}) =>
    store().sessions.create({
      userId,
      tokenHash,
      securityStamp: 1,
      persistent: false,
      method: options.method === undefined ? 'password' : options.method,
      createdAt: options.createdAt ?? 1_000,
      expiresAt: options.expiresAt ?? 100_000,
      client: { userAgent: `agent ${tokenHash}`, ip: options.ip ?? '192.0.2.1' },
    });
  const family = async (userId: number, tokenHash: string, options: { createdAt?: number; expiresAt?: number; method?: SignInMethod | null } = {}) =>
    (
      await store().refreshTokens.createFamily({
        userId,
        securityStamp: 1,
        tokenHash,
        createdAt: options.createdAt ?? 1_000,
        expiresAt: options.expiresAt ?? 100_000,
        method: options.method === undefined ? 'password' : options.method,
        client: { userAgent: `agent ${tokenHash}`, ip: '192.0.2.2' },
      })
    ).family;
  const events = async (kind: 'session' | 'family') =>
    (await store().revocations.listSince(0)).filter((event) => event.kind === kind).map((event) => event.subject);

  it('lists the live cookie sessions and families of the user, the most recently used first, with what each recorded', async () => {
    const userId = await createUser();
    const other = await createUser();
    const older = await cookie(userId, 'c-older', { createdAt: 1_000 });
    const newer = await cookie(userId, 'c-newer', { createdAt: 2_000, method: 'external:acme' });
    const tokens = await family(userId, 't-1', { createdAt: 1_500, method: 'two-factor' });
    await cookie(userId, 'c-expired', { expiresAt: 5_000 });
    await family(userId, 't-expired', { expiresAt: 5_000 });
    const revoked = await family(userId, 't-revoked');
    await store().refreshTokens.revokeFamily(revoked.id, 3_000);
    await cookie(other, 'c-other');
    await family(other, 't-other');
    // The older cookie session was used last.
    await store().sessions.recordUse(older.id, { at: 8_000, client: { userAgent: 'agent later', ip: '198.51.100.9' } });

    const listed = await store().userSessions.list(userId, 6_000);
    expect(listed).toEqual([
      { kind: 'cookie', id: older.id, userId, method: 'password', createdAt: 1_000, lastSeenAt: 8_000, expiresAt: 100_000, userAgent: 'agent later', ip: '198.51.100.9', tokenHash: 'c-older' },
      { kind: 'cookie', id: newer.id, userId, method: 'external:acme', createdAt: 2_000, lastSeenAt: 2_000, expiresAt: 100_000, userAgent: 'agent c-newer', ip: '192.0.2.1', tokenHash: 'c-newer' },
      { kind: 'token', id: tokens.id, userId, method: 'two-factor', createdAt: 1_500, lastSeenAt: 1_500, expiresAt: 100_000, userAgent: 'agent t-1', ip: '192.0.2.2', tokenHash: null },
    ]);
    expect(await store().userSessions.list(await createUser(), 6_000)).toEqual([]);
  });

  it('records a refresh as the use of its family, with the client of the refresh', async () => {
    const userId = await createUser();
    const begun = await family(userId, 'r1', { createdAt: 1_000, method: null });
    expect(begun).toMatchObject({ method: null, lastSeenAt: 1_000, userAgent: 'agent r1', ip: '192.0.2.2' });
    const rotated = await store().refreshTokens.rotate({ tokenHash: 'r1', nextHash: 'r2', now: 4_000, grace: null, client: { userAgent: 'App/2', ip: '203.0.113.5' } });
    expect(rotated).toMatchObject({ kind: 'rotated', family: { id: begun.id, lastSeenAt: 4_000, userAgent: 'App/2', ip: '203.0.113.5' } });
    // Without a client told, the use still counts and the last client stays.
    await store().refreshTokens.rotate({ tokenHash: 'r2', nextHash: 'r3', now: 5_000, grace: null });
    expect((await store().refreshTokens.find('r3'))?.family).toMatchObject({ lastSeenAt: 5_000, userAgent: 'App/2', ip: '203.0.113.5' });
    expect((await store().userSessions.list(userId, 6_000))[0]).toMatchObject({ kind: 'token', lastSeenAt: 5_000, method: null });
  });

  it("ends one cookie session of the user with a session event naming the user, and nothing of another user's", async () => {
    const userId = await createUser();
    const other = await createUser();
    const mine = await cookie(userId, 'mine');
    const kept = await cookie(userId, 'kept');
    const theirs = await cookie(other, 'theirs');
    expect(await store().userSessions.end(userId, { kind: 'cookie', id: theirs.id }, 2_000)).toBe(false);
    expect(await store().sessions.findByTokenHash('theirs', 2_000)).not.toBeNull();
    expect(await events('session')).toEqual([]);

    expect(await store().userSessions.end(userId, { kind: 'cookie', id: mine.id }, 2_000)).toBe(true);
    expect(await store().sessions.findByTokenHash('mine', 2_000)).toBeNull();
    expect(await store().sessions.findByTokenHash('kept', 2_000)).toMatchObject({ id: kept.id });
    expect(await events('session')).toEqual([String(userId)]);
    // Once: it is gone.
    expect(await store().userSessions.end(userId, { kind: 'cookie', id: mine.id }, 2_000)).toBe(false);
    expect(await events('session')).toEqual([String(userId)]);
  });

  it("ends one family of the user with a family event naming it, and no ended, expired or other user's family", async () => {
    const userId = await createUser();
    const other = await createUser();
    const mine = await family(userId, 'mine');
    const expired = await family(userId, 'expired', { expiresAt: 1_500 });
    const theirs = await family(other, 'theirs');
    expect(await store().userSessions.end(userId, { kind: 'token', id: theirs.id }, 2_000)).toBe(false);
    expect(await store().userSessions.end(userId, { kind: 'token', id: expired.id }, 2_000)).toBe(false);
    // A cookie id of the same number is another session: the kinds do not mix.
    expect(await store().userSessions.end(userId, { kind: 'cookie', id: mine.id }, 2_000)).toBe(false);
    expect(await events('family')).toEqual([]);

    expect(await store().userSessions.end(userId, { kind: 'token', id: mine.id }, 2_000)).toBe(true);
    expect((await store().refreshTokens.find('mine'))?.family.revokedAt).toBe(2_000);
    expect(await store().refreshTokens.rotate({ tokenHash: 'mine', nextHash: 'next', now: 2_500, grace: null })).toMatchObject({ kind: 'ended' });
    expect((await store().refreshTokens.find('theirs'))?.family.revokedAt).toBeNull();
    expect(await events('family')).toEqual([String(mine.id)]);
    expect(await store().userSessions.end(userId, { kind: 'token', id: mine.id }, 3_000)).toBe(false);
    expect(await events('family')).toEqual([String(mine.id)]);
  });

  it("ends every session and family of the user but those kept, with their events, and no other user's", async () => {
    const userId = await createUser();
    const other = await createUser();
    const keptCookie = await cookie(userId, 'kept-cookie');
    await cookie(userId, 'c2');
    await cookie(userId, 'c3');
    const keptFamily = await family(userId, 'kept-family');
    const f2 = await family(userId, 'f2');
    await cookie(other, 'other-cookie');
    const otherFamily = await family(other, 'other-family');

    const kept = [
      { kind: 'cookie', id: keptCookie.id },
      { kind: 'token', id: keptFamily.id },
    ] as const;
    expect(await store().userSessions.endAll(userId, 2_000, kept)).toBe(3);
    expect((await store().userSessions.list(userId, 2_000)).map(({ kind, id }) => ({ kind, id }))).toEqual(
      expect.arrayContaining([...kept]),
    );
    expect(await store().userSessions.list(userId, 2_000)).toHaveLength(2);
    expect(await events('session')).toEqual([String(userId)]);
    expect(await events('family')).toEqual([String(f2.id)]);
    expect(await store().userSessions.list(other, 2_000)).toHaveLength(2);

    // Then all of them; nothing left to end is no event.
    expect(await store().userSessions.endAll(userId, 3_000)).toBe(2);
    expect(await store().userSessions.list(userId, 3_000)).toEqual([]);
    expect(await store().userSessions.endAll(userId, 3_000)).toBe(0);
    expect(await events('session')).toEqual([String(userId), String(userId)]);
    expect(await events('family')).toEqual([String(f2.id), String(keptFamily.id)]);
    expect((await store().refreshTokens.find('other-family'))?.family.revokedAt).toBeNull();
    expect(otherFamily.userId).toBe(other);
  });

  it('announces a family revoked by its token (sign-out at /auth/revoke, a reuse) on the feed, once', async () => {
    const userId = await createUser();
    const ended = await family(userId, 'f');
    expect(await store().refreshTokens.revokeFamily(ended.id, 2_000)).toBe(true);
    expect(await store().refreshTokens.revokeFamily(ended.id, 3_000)).toBe(false);
    expect(await events('family')).toEqual([String(ended.id)]);
  });

  it('lists nothing for a deleted user, and ends nothing', async () => {
    const userId = await createUser();
    await cookie(userId, 'c');
    await family(userId, 'f');
    await store().users.delete(userId);
    expect(await store().userSessions.list(userId, 2_000)).toEqual([]);
    expect(await store().userSessions.endAll(userId, 2_000)).toBe(0);
  });
});
