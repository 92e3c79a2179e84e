import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/audit-log.ts';
import { ManualClock } from '../platform/clock.ts';
import { createLogger } from '../platform/logger.ts';
import { createStore } from '../store/create-store.ts';
import type { Store, User } from '../store/ports.ts';
import { AccountLockedError, CredentialChecks } from './credential-checks.ts';
import { AccountLockout } from './lockout.ts';

const LOCKOUT_MS = 5 * 60_000;

describe('CredentialChecks', () => {
  let store: Store;
  let clock: ManualClock;
  let checks: CredentialChecks;
  let user: User;

  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    clock = new ManualClock();
    const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    const audit = new AuditLog(store.audit, clock, logger);
    const lockout = new AccountLockout({ userStore: store.users, audit, clock, logger, lockout: { maxAttempts: 3, durationMs: LOCKOUT_MS } });
    checks = new CredentialChecks({ lockout, userStore: store.users, audit });
    user = await store.users.create({ email: 'ada@example.com', normalizedEmail: 'ada@example.com', userName: null, normalizedUserName: null, passwordHash: 'x', emailConfirmed: true, createdAt: 0 });
  });
  afterEach(() => store.close());

  it('does not run the check at all while the account is locked', async () => {
    for (let i = 0; i < 3; i++) expect(await checks.verify(user, 'disable-two-factor', 'code', async () => false)).toBe(false);
    const locked = (await store.users.findById(user.id))!;
    let ran = false;
    const refused = checks.verify(locked, 'disable-two-factor', 'code', async () => (ran = true));
    await expect(refused).rejects.toBeInstanceOf(AccountLockedError);
    await expect(refused).rejects.toMatchObject({ until: clock.now() + LOCKOUT_MS });
    expect(ran).toBe(false);
  });

  it('refuses a right answer when concurrent failures locked the account while it was being checked', async () => {
    const racing = async () => {
      // Other guesses land while this one is being checked, and lock the account.
      for (let i = 0; i < 3; i++) await store.users.recordFailedSignIn(user.id, { maxAttempts: 3, lockoutEnd: clock.now() + LOCKOUT_MS, now: clock.now() });
      return true;
    };
    await expect(checks.verify(user, 'change-password', 'password', racing)).rejects.toBeInstanceOf(AccountLockedError);
  });

  it('resets nothing on a right answer', async () => {
    await checks.verify(user, 'change-password', 'password', async () => false);
    expect(await checks.verify(user, 'change-password', 'password', async () => true)).toBe(true);
    expect((await store.users.findById(user.id))!.accessFailedCount).toBe(1);
  });
});
