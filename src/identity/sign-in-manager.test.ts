import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/audit-log.ts';
import { ManualClock } from '../platform/clock.ts';
import { createLogger } from '../platform/logger.ts';
import { createStore } from '../store/create-store.ts';
import type { Store, User } from '../store/ports.ts';
import { CredentialChecks } from './credential-checks.ts';
import { AccountLockout, type AccountLockoutOptions } from './lockout.ts';
import { PasswordHasher } from './password-hasher.ts';
import { SignInManager, type SignInManagerOptions } from './sign-in-manager.ts';
import { OutboxMailer } from '../platform/mail/outbox-mailer.ts';
import { Sealer } from '../security/crypto/sealer.ts';
import { CodeHasher } from './two-factor/code-hashes.ts';
import { TwoFactorManager } from './two-factor/two-factor-manager.ts';
import { UserManager } from './user-manager.ts';
import { SecurityChanges } from './security-changes.ts';
import { SessionManager } from './sessions.ts';
import { RevocationList } from '../revocation/revocation-list.ts';
import { cryptoRandom } from '../platform/random.ts';

const unused = (): never => {
  throw new Error('not used by a sign-in');
};

const PASSWORD = 'a long and unusual passphrase';
const LOCKOUT_MS = 5 * 60_000;

describe('SignInManager lockout', () => {
  let store: Store;
  let clock: ManualClock;
  let logs: string[];
  let users: UserManager;
  let user: User;
  const hasher = new PasswordHasher();

  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    clock = new ManualClock();
    logs = [];
    const quiet = createLogger({ level: 'silent', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    const audit = new AuditLog(store.audit, clock, quiet);
    const lockout = new AccountLockout({ userStore: store.users, audit, clock, logger: quiet, lockout: { maxAttempts: 3, durationMs: LOCKOUT_MS } });
    users = new UserManager(store.users, hasher, clock, 8, new CredentialChecks({ lockout, userStore: store.users, audit }));
    user = await users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
  });
  afterEach(() => store.close());

  function manager(options: Partial<SignInManagerOptions> & Pick<AccountLockoutOptions, 'onLockout'> = {}): SignInManager {
    const destination = new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) });
    const logger = createLogger({ level: 'info', destination });
    const audit = new AuditLog(store.audit, clock, logger);
    const { onLockout, ...rest } = options;
    const lockout = new AccountLockout({
      userStore: store.users,
      audit,
      clock,
      logger,
      lockout: { maxAttempts: 3, durationMs: LOCKOUT_MS },
      ...(onLockout ? { onLockout } : {}),
    });
    const twoFactor = new TwoFactorManager({
      store: store.twoFactor,
      sealer: new Sealer('a test secret of enough length for the sealer'),
      codes: new CodeHasher('a test ring secret'),
      audit,
      mailer: new OutboxMailer(store.outbox, clock, logger),
      sms: null,
      clock,
      checks: new CredentialChecks({ lockout, userStore: store.users, audit }),
      // Sign-in changes no two-factor setting: nothing to announce or re-issue here.
      securityChanges: new SecurityChanges({ sessions: { asking: async () => null, reissue: unused }, revocationFeed: { changed: unused } }),
      unitOfWork: store.unitOfWork,
    });
    return new SignInManager({
      users,
      userStore: store.users,
      hasher,
      audit,
      clock,
      logger,
      requireConfirmedEmail: true,
      twoFactor,
      lockout,
      ...rest,
    });
  }

  it('locks at the maximum, calls the owner back once with the end, and refuses the right password meanwhile', async () => {
    const calls: [number, number][] = [];
    const signIn = manager({ onLockout: async (locked, until) => void calls.push([locked.id, until]) });
    for (let i = 0; i < 3; i++) expect(await signIn.passwordSignIn('ada@example.com', 'wrong')).toEqual({ succeeded: false });
    expect(calls).toEqual([[user.id, clock.now() + LOCKOUT_MS]]);
    expect(await signIn.passwordSignIn('ada@example.com', PASSWORD)).toEqual({ succeeded: false });
    expect(await signIn.passwordSignIn('ada@example.com', 'wrong')).toEqual({ succeeded: false });
    expect(calls).toHaveLength(1);
    clock.advance(LOCKOUT_MS);
    expect(await signIn.passwordSignIn('ada@example.com', PASSWORD)).toMatchObject({ succeeded: true });
  });

  it('logs a failing lockout callback without failing the sign-in or naming the password', async () => {
    const signIn = manager({ onLockout: async () => Promise.reject(new Error('mail server down')) });
    for (let i = 0; i < 3; i++) expect(await signIn.passwordSignIn('ada@example.com', 'wrong guess')).toEqual({ succeeded: false });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.some((line) => line.includes('could not tell the owner that the account locked'))).toBe(true);
    expect(logs.join('')).not.toContain('wrong guess');
    expect((await store.users.findById(user.id))?.lockoutEnd).toBe(clock.now() + LOCKOUT_MS);
  });

  it('refuses the right password when a lockout lands while it is being checked', async () => {
    const signIn = manager();
    // The account locks after the sign-in read the user and before it completes.
    const slowHasher = Object.create(hasher) as PasswordHasher;
    slowHasher.verify = async (hash, password) => {
      const matches = await hasher.verify(hash, password);
      for (let i = 0; i < 3; i++) await store.users.recordFailedSignIn(user.id, { maxAttempts: 3, lockoutEnd: clock.now() + LOCKOUT_MS, now: clock.now() });
      return matches;
    };
    const racing = manager({ hasher: slowHasher });
    expect(await racing.passwordSignIn('ada@example.com', PASSWORD)).toEqual({ succeeded: false });
    expect(await signIn.passwordSignIn('ada@example.com', PASSWORD)).toEqual({ succeeded: false });
  });

  it('does not count an unconfirmed e-mail with the right password, nor reset the count', async () => {
    const unconfirmed = await users.create({ email: 'bob@example.com', password: PASSWORD });
    const signIn = manager();
    await signIn.passwordSignIn('bob@example.com', 'wrong');
    expect(await signIn.passwordSignIn('bob@example.com', PASSWORD)).toEqual({ succeeded: false, isNotAllowed: true });
    expect((await store.users.findById(unconfirmed.id))?.accessFailedCount).toBe(1);
  });

  it('resets the count at a completed sign-in', async () => {
    const signIn = manager();
    await signIn.passwordSignIn('ada@example.com', 'wrong');
    await signIn.passwordSignIn('ada@example.com', 'wrong');
    expect(await signIn.passwordSignIn('ada@example.com', PASSWORD)).toMatchObject({ succeeded: true });
    expect((await store.users.findById(user.id))?.accessFailedCount).toBe(0);
  });

  it('opens the session it is granted, in place of the browser\'s, only when the sign-in completes', async () => {
    const sessions = new SessionManager({ sessions: store.sessions, users: store.users, revocations: new RevocationList(), clock, random: cryptoRandom, lifetimeMs: 3_600_000 });
    const signIn = manager({ sessions });
    const client = { ip: '203.0.113.9', userAgent: 'Test Browser' };
    const held = await sessions.signIn(user, { persistent: false, method: 'password', client });
    const grant = { kind: 'session', persistent: true, method: 'password', client, replacing: held.token } as const;

    expect(await signIn.passwordSignIn('ada@example.com', 'wrong', { grant })).toEqual({ succeeded: false });
    expect((await sessions.validate(held.token)).valid).toBe(true);

    const result = await signIn.passwordSignIn('ada@example.com', PASSWORD, { grant });
    expect((await sessions.validate(held.token)).valid).toBe(false);
    expect(result.succeeded && (await sessions.validate(result.session?.token ?? ''))).toMatchObject({ valid: true, persistent: true, method: 'password' });
  });
});
