import { describe, expect, it } from 'vitest';
import { useMigratedStore } from '../../test/contracts/migrated-store.ts';
import { testEngines } from '../../test/helpers/databases.ts';
import { ManualClock } from '../platform/clock.ts';
import { cryptoRandom } from '../platform/random.ts';
import { RevocationList } from '../revocation/revocation-list.ts';
import { sha256Hex } from '../security/crypto/digest.ts';
import { ABSOLUTE_SESSION_MS, SessionManager } from './sessions.ts';

const HOUR = 3_600_000;
const engines = await testEngines();

describe.each(engines)('SessionManager on $engine', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const database = useMigratedStore(engine, { clock });
  let count = 0;

  const setup = async (lifetimeMs = HOUR) => {
    clock.set(Date.UTC(2026, 0, 1));
    const { store } = database;
    const revocations = new RevocationList();
    const manager = new SessionManager({
      sessions: store.sessions,
      users: store.users,
      revocations,
      clock,
      random: cryptoRandom,
      lifetimeMs,
    });
    count += 1;
    const email = `s${count}@example.com`;
    const user = await store.users.create({
      email,
      normalizedEmail: email,
      userName: `user${count}`,
      normalizedUserName: `user${count}`,
      passwordHash: null,
      emailConfirmed: true,
      roles: ['Admin'],
      claims: [{ type: 'org_id', value: '7' }],
      createdAt: 1,
    });
    return { store, manager, user, revocations };
  };

  it('signs in with a fresh 256-bit token of which only the hash is stored, and validates it to the user', async () => {
    const { store, manager, user } = await setup();
    const session = await manager.signIn(user, { persistent: false, method: 'password' });
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.expiresAt).toBe(clock.now() + HOUR);
    const stored = await store.sessions.findByTokenHash(sha256Hex(session.token), clock.now());
    expect(stored?.tokenHash).not.toBe(session.token);
    const validation = await manager.validate(session.token);
    expect(validation.valid).toBe(true);
    if (!validation.valid) return;
    const { principal } = validation;
    expect(principal.subject).toBe(String(user.id));
    expect(principal.name).toBe(user.userName);
    expect(principal.isInRole('Admin')).toBe(true);
    expect(principal.findFirst('org_id')?.value).toBe('7');
    expect(principal.identities[0]?.authenticationType).toBe('Cookies');
    expect(validation.renewed).toBe(false);
  });

  it('refuses unknown and malformed tokens, and a token after sign-out', async () => {
    const { manager, user } = await setup();
    const { token } = await manager.signIn(user, { persistent: true, method: 'password' });
    expect((await manager.validate('x'.repeat(43))).valid).toBe(false);
    expect((await manager.validate('not a token')).valid).toBe(false);
    await manager.signOut(token);
    expect((await manager.validate(token)).valid).toBe(false);
  });

  it('slides the expiry once more than half the lifetime has passed, and ends an idle session', async () => {
    const { manager, user } = await setup();
    const { token, expiresAt } = await manager.signIn(user, { persistent: true, method: 'password' });
    clock.advance(HOUR / 4);
    const early = await manager.validate(token);
    expect(early.valid && early.renewed).toBe(false);
    expect(early.valid && early.expiresAt).toBe(expiresAt);
    clock.advance(HOUR / 2);
    const renewed = await manager.validate(token);
    expect(renewed.valid && renewed.renewed).toBe(true);
    expect(renewed.valid && renewed.expiresAt).toBe(clock.now() + HOUR);
    clock.advance(HOUR + 1);
    expect((await manager.validate(token)).valid).toBe(false);
  });

  it('reads the session without sliding it for current(): only a use keeps a session alive', async () => {
    const { manager, user } = await setup();
    const { token, expiresAt } = await manager.signIn(user, { persistent: true, method: 'password' });
    clock.advance((HOUR * 3) / 4);
    const read = await manager.current(token);
    expect(read.valid && read.renewed).toBe(false);
    expect(read.valid && read.expiresAt).toBe(expiresAt);
    expect(read.valid && read.principal.subject).toBe(String(user.id));
    clock.set(expiresAt);
    expect((await manager.current(token)).valid).toBe(false);
    expect((await manager.validate(token)).valid).toBe(false);
  });

  it('never slides past the absolute lifetime counted from the sign-in', async () => {
    const day = 24 * HOUR;
    const { manager, user } = await setup(day);
    const signedInAt = clock.now();
    const { token } = await manager.signIn(user, { persistent: true, method: 'password' });
    for (let at = 0; at < ABSOLUTE_SESSION_MS; at += day * 0.75) {
      clock.set(signedInAt + at);
      expect((await manager.validate(token)).valid).toBe(true);
    }
    clock.set(signedInAt + ABSOLUTE_SESSION_MS);
    expect((await manager.validate(token)).valid).toBe(false);
  });

  it('ends the session when the security stamp changes (admin lock) and when the user is deleted', async () => {
    const { store, manager, user } = await setup();
    const { token } = await manager.signIn(user, { persistent: false, method: 'password' });
    await store.users.setAdminLock(user.id, true);
    expect((await manager.validate(token)).valid).toBe(false);
    await store.users.setAdminLock(user.id, false);
    expect((await manager.validate(token)).valid).toBe(false);

    const again = await manager.signIn((await store.users.findById(user.id))!, { persistent: false, method: 'password' });
    expect((await manager.validate(again.token)).valid).toBe(true);
    await store.users.delete(user.id);
    expect((await manager.validate(again.token)).valid).toBe(false);
  });

  it('keeps a session through a claims change, with the new claims', async () => {
    const { store, manager, user } = await setup();
    const { token } = await manager.signIn(user, { persistent: false, method: 'password' });
    await store.users.addRole(user.id, 'Editor');
    const validation = await manager.validate(token);
    expect(validation.valid && validation.principal.isInRole('Editor')).toBe(true);
  });
});
