import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/audit-log.ts';
import { CredentialChecks } from '../identity/credential-checks.ts';
import { AccountLockout } from '../identity/lockout.ts';
import { PasswordHasher } from '../identity/password-hasher.ts';
import { SecurityChanges } from '../identity/security-changes.ts';
import { type PresentedSession, SessionManager } from '../identity/sessions.ts';
import { UserManager } from '../identity/user-manager.ts';
import { ManualClock } from '../platform/clock.ts';
import { createLogger } from '../platform/logger.ts';
import { cryptoRandom } from '../platform/random.ts';
import { RevocationList } from '../revocation/revocation-list.ts';
import { GatehouseError } from '../security/errors.ts';
import { createStore } from '../store/create-store.ts';
import type { Store, User } from '../store/ports.ts';
import { PasswordChange } from './password-change.ts';

const PASSWORD = 'a long and unusual passphrase';
const NEW_PASSWORD = 'another long and unusual passphrase';
const CLIENT = { ip: '203.0.113.9', userAgent: 'Test Browser' };

describe('PasswordChange', () => {
  let store: Store;
  let sessions: SessionManager;
  let user: User;
  let passwordChange: PasswordChange;
  /** What the store held each time the change was announced. */
  let announced: { events: string[]; revocations: number }[];
  const hasher = new PasswordHasher();

  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    const clock = new ManualClock();
    const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    const audit = new AuditLog(store.audit, clock, logger, store.unitOfWork);
    const lockout = new AccountLockout({ userStore: store.users, audit, clock, logger, lockout: { maxAttempts: 5, durationMs: 60_000 } });
    const users = new UserManager(store.users, hasher, clock, 8, new CredentialChecks({ lockout, userStore: store.users, audit }));
    sessions = new SessionManager({ sessions: store.sessions, users: store.users, revocations: new RevocationList(), clock, random: cryptoRandom, lifetimeMs: 3_600_000 });
    announced = [];
    const revocationFeed = {
      changed: async () => {
        const events = (await store.audit.list({ limit: 50 })).map((event) => event.type);
        announced.push({ events, revocations: (await store.revocations.listSince(0)).length });
      },
    };
    passwordChange = new PasswordChange({ users, audit, securityChanges: new SecurityChanges({ sessions, revocationFeed }), unitOfWork: store.unitOfWork });
    user = await users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
  });
  afterEach(() => store.close());

  const signedIn = async (): Promise<PresentedSession> => {
    const { token } = await sessions.signIn(user, { persistent: true, method: 'password', client: CLIENT });
    return { token, client: CLIENT };
  };
  const events = async (type: string) => (await store.audit.list({ limit: 50 })).filter((event) => event.type === type);

  it('changes the password, writes password.changed and announces the committed revocation in one call', async () => {
    await passwordChange.change(user, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { by: user.id, ip: CLIENT.ip }, null);

    expect(await events('password.changed')).toMatchObject([{ userId: user.id, ip: CLIENT.ip }]);
    // Announced once, after the event and the store's revocation event were both written.
    expect(announced).toHaveLength(1);
    expect(announced[0]?.events).toContain('password.changed');
    expect(announced[0]?.revocations).toBeGreaterThan(0);
    const changed = await store.users.findById(user.id);
    expect(await hasher.verify(changed?.passwordHash ?? null, NEW_PASSWORD)).toBe(true);
  });

  it('ends the asking session and returns its successor, which continues the sign-in under the new stamp', async () => {
    const asking = await signedIn();
    const before = await sessions.validate(asking.token);

    const renewed = await passwordChange.change(user, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, { by: user.id, ip: CLIENT.ip }, asking);

    expect(renewed).not.toBeNull();
    expect((await sessions.validate(asking.token)).valid).toBe(false);
    const successor = await sessions.validate(renewed?.token ?? '');
    expect(before).toMatchObject({ valid: true });
    expect(successor).toMatchObject({ valid: true, persistent: true, method: 'password', signedInAt: before.valid ? before.signedInAt : -1 });
  });

  it('writes no event, announces nothing and keeps the session when the current password is wrong', async () => {
    const asking = await signedIn();

    const refused = passwordChange.change(user, { currentPassword: 'not the password', newPassword: NEW_PASSWORD }, { by: user.id, ip: CLIENT.ip }, asking);

    await expect(refused).rejects.toMatchObject({ code: 'GH_VALIDATION_FAILED' });
    await expect(refused).rejects.toBeInstanceOf(GatehouseError);
    expect(await events('password.changed')).toEqual([]);
    expect(announced).toEqual([]);
    expect((await sessions.validate(asking.token)).valid).toBe(true);
  });

  it('writes no event and announces nothing when the new password breaks the rules', async () => {
    await expect(passwordChange.change(user, { currentPassword: PASSWORD, newPassword: 'short' }, { by: user.id, ip: CLIENT.ip }, null)).rejects.toMatchObject({
      code: 'GH_VALIDATION_FAILED',
    });
    expect(await events('password.changed')).toEqual([]);
    expect(announced).toEqual([]);
  });
});
