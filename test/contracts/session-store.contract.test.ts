import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

describe.each(engines)('SessionStore on $label', (engine) => {
  const database = useMigratedStore(engine);
  const sessions = () => database.store.sessions;

  let emails = 0;
  const createUser = async () => {
    emails += 1;
    const email = `user${emails}@example.com`;
    const user = await database.store.users.create({
      email,
      normalizedEmail: email,
      userName: null,
      normalizedUserName: null,
      passwordHash: null,
      emailConfirmed: true,
      createdAt: 1,
    });
    return user.id;
  };
  const createSession = async (tokenHash: string, options: Partial<Omit<Session, 'id' | 'tokenHash' | 'userAgent' | 'ip' | 'lastSeenAt'>> = {}) =>
    sessions().create({
      userId: options.userId ?? (await createUser()),
      tokenHash,
      securityStamp: options.securityStamp ?? 1,
      persistent: options.persistent ?? false,
      method: options.method === undefined ? 'password' : options.method,
      createdAt: options.createdAt ?? 1_000,
      expiresAt: options.expiresAt ?? 10_000,
    });

  it('creates a session and finds it by its token hash while it has not expired', async () => {
    const userId = await createUser();
    const created = await createSession('h1', { userId, securityStamp: 4, persistent: true, method: 'external:acme' });
    expect(created).toEqual({
      id: expect.any(Number),
      userId,
      tokenHash: 'h1',
      securityStamp: 4,
      persistent: true,
      method: 'external:acme',
      organizationId: null,
      createdAt: 1_000,
      expiresAt: 10_000,
      // Its last use is its creation, from an unknown client.
      lastSeenAt: 1_000,
      userAgent: null,
      ip: null,
    });
    expect(await sessions().findByTokenHash('h1', 9_999)).toEqual(created);
    expect(await sessions().findByTokenHash('h1', 10_000)).toBeNull();
    expect(await sessions().findByTokenHash('unknown', 2_000)).toBeNull();
  });

  it('keeps the persistent flag false for a browser-session cookie', async () => {
    const created = await createSession('h1');
    expect((await sessions().findByTokenHash('h1', 2_000))?.persistent).toBe(false);
    expect(created.persistent).toBe(false);
  });

  it('refuses a second session with the same token hash', async () => {
    await createSession('h1');
    await expect(createSession('h1')).rejects.toThrow();
  });

  it('slides the expiry of one session only', async () => {
    const userId = await createUser();
    const first = await createSession('h1', { userId });
    await createSession('h2', { userId });
    expect(await sessions().slide(first.id, 20_000)).toBe(true);
    expect((await sessions().findByTokenHash('h1', 15_000))?.expiresAt).toBe(20_000);
    expect(await sessions().findByTokenHash('h2', 15_000)).toBeNull();
    expect(await sessions().slide(first.id + 1_000, 20_000)).toBe(false);
  });

  it('keeps the client of its sign-in, and records a use (with a slid expiry or without) in one write', async () => {
    const userId = await createUser();
    const created = await sessions().create({
      userId,
      tokenHash: 'h1',
      securityStamp: 1,
      persistent: false,
      method: 'password',
      createdAt: 1_000,
      expiresAt: 10_000,
      client: { userAgent: 'Browser/1', ip: '203.0.113.7' },
    });
    expect(created).toMatchObject({ lastSeenAt: 1_000, userAgent: 'Browser/1', ip: '203.0.113.7' });
    await createSession('other', { userId });

    expect(await sessions().recordUse(created.id, { at: 4_000, client: { userAgent: 'Browser/2', ip: '198.51.100.1' } })).toBe(true);
    expect(await sessions().findByTokenHash('h1', 5_000)).toMatchObject({ lastSeenAt: 4_000, expiresAt: 10_000, userAgent: 'Browser/2', ip: '198.51.100.1' });
    expect(await sessions().recordUse(created.id, { at: 6_000, client: { userAgent: null, ip: null }, expiresAt: 30_000 })).toBe(true);
    expect(await sessions().findByTokenHash('h1', 20_000)).toMatchObject({ lastSeenAt: 6_000, expiresAt: 30_000, userAgent: null, ip: null });
    // The other session is untouched; a session that is gone records nothing.
    expect(await sessions().findByTokenHash('other', 2_000)).toMatchObject({ lastSeenAt: 1_000 });
    expect(await sessions().recordUse(created.id + 1_000, { at: 7_000, client: { userAgent: null, ip: null } })).toBe(false);
  });

  it('deletes one session by its token hash, once', async () => {
    await createSession('h1');
    await createSession('h2');
    expect(await sessions().delete('h1')).toBe(true);
    expect(await sessions().delete('h1')).toBe(false);
    expect(await sessions().findByTokenHash('h1', 2_000)).toBeNull();
    expect(await sessions().findByTokenHash('h2', 2_000)).not.toBeNull();
  });

  it("deletes every session of a user, or all but one, and leaves other users' alone", async () => {
    const userId = await createUser();
    const kept = await createSession('a1', { userId });
    await createSession('a2', { userId });
    await createSession('a3', { userId });
    await createSession('b1');
    expect(await sessions().deleteUserSessions(userId, kept.id)).toBe(2);
    expect(await sessions().findByTokenHash('a1', 2_000)).not.toBeNull();
    expect(await sessions().findByTokenHash('a2', 2_000)).toBeNull();
    expect(await sessions().deleteUserSessions(userId)).toBe(1);
    expect(await sessions().findByTokenHash('a1', 2_000)).toBeNull();
    expect(await sessions().findByTokenHash('b1', 2_000)).not.toBeNull();
  });

  it('announces ended sessions on the revocation feed, naming their user, and nothing when none ended', async () => {
    const userId = await createUser();
    const other = await createUser();
    await createSession('h1', { userId });
    await createSession('o1', { userId: other });
    await createSession('o2', { userId: other });
    const sessionEvents = async () =>
      (await database.store.revocations.listSince(0)).filter((event) => event.kind === 'session').map((event) => event.subject);
    expect(await sessions().delete('h1')).toBe(true);
    expect(await sessions().delete('h1')).toBe(false);
    expect(await sessionEvents()).toEqual([String(userId)]);
    expect(await sessions().deleteUserSessions(other)).toBe(2);
    expect(await sessions().deleteUserSessions(other)).toBe(0);
    expect(await sessionEvents()).toEqual([String(userId), String(other)]);
  });

  it('keeps how each session was opened, null for one that did not say', async () => {
    const userId = await createUser();
    for (const [hash, method] of [['p', 'password'], ['k', 'passkey'], ['t', 'two-factor'], ['e', 'external:acme'], ['n', null]] as const) {
      await createSession(hash, { userId, method });
      expect((await sessions().findByTokenHash(hash, 2_000))?.method).toBe(method);
    }
  });

  it("deletes the user's sessions opened by one method only, announcing them, and leaves other users' alone", async () => {
    const userId = await createUser();
    const other = await createUser();
    await createSession('acme-1', { userId, method: 'external:acme' });
    await createSession('acme-2', { userId, method: 'external:acme' });
    await createSession('beta', { userId, method: 'external:beta' });
    await createSession('password', { userId, method: 'password' });
    await createSession('unknown', { userId, method: null });
    await createSession('other-acme', { userId: other, method: 'external:acme' });
    const sessionEvents = async () =>
      (await database.store.revocations.listSince(0)).filter((event) => event.kind === 'session').map((event) => event.subject);

    expect(await sessions().deleteUserSessionsByMethod(userId, 'external:acme')).toBe(2);
    expect(await sessionEvents()).toEqual([String(userId)]);
    for (const gone of ['acme-1', 'acme-2']) expect(await sessions().findByTokenHash(gone, 2_000)).toBeNull();
    for (const kept of ['beta', 'password', 'unknown', 'other-acme']) expect(await sessions().findByTokenHash(kept, 2_000)).not.toBeNull();
    expect(await sessions().deleteUserSessionsByMethod(userId, 'external:acme')).toBe(0);
    expect(await sessionEvents()).toEqual([String(userId)]);
  });

  it('goes with its user when the user is deleted', async () => {
    const userId = await createUser();
    await createSession('h1', { userId });
    await database.store.users.delete(userId);
    expect(await sessions().findByTokenHash('h1', 2_000)).toBeNull();
    expect(await sessions().deleteUserSessions(userId)).toBe(0);
  });

  it('prunes only sessions that expired before the given time', async () => {
    await createSession('old', { expiresAt: 5_000 });
    await createSession('new', { expiresAt: 50_000 });
    expect(await sessions().prune(6_000)).toBe(1);
    expect(await sessions().findByTokenHash('new', 6_000)).not.toBeNull();
    expect(await sessions().prune(6_000)).toBe(0);
  });
});
