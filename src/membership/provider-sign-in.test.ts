import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/audit-log.ts';
import { ExternalLogins } from '../identity/external-logins.ts';
import { ExternalSignIn } from '../identity/external-sign-in.ts';
import { SecurityChanges } from '../identity/security-changes.ts';
import { SessionManager } from '../identity/sessions.ts';
import { ManualClock } from '../platform/clock.ts';
import { createLogger } from '../platform/logger.ts';
import { OutboxMailer } from '../platform/mail/outbox-mailer.ts';
import { cryptoRandom } from '../platform/random.ts';
import { RevocationList } from '../revocation/revocation-list.ts';
import { createStore } from '../store/create-store.ts';
import type { Store, User } from '../store/ports.ts';
import { type CallbackContext, ProviderSignIn } from './provider-sign-in.ts';

const CLIENT = { ip: '203.0.113.9', userAgent: 'Test Browser' };
const IDENTITY = { provider: 'acme', subject: 'sub-1', email: 'ada@example.com', emailVerified: true };

describe('ProviderSignIn', () => {
  let store: Store;
  let sessions: SessionManager;
  let providerSignIn: ProviderSignIn;
  let user: User;
  const clock = new ManualClock();

  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_chunk, _encoding, done) => done() }) });
    const audit = new AuditLog(store.audit, clock, logger);
    sessions = new SessionManager({ sessions: store.sessions, users: store.users, revocations: new RevocationList(), clock, random: cryptoRandom, lifetimeMs: 3_600_000 });
    const securityChanges = new SecurityChanges({ sessions, revocationFeed: { changed: async () => undefined } });
    const mailer = new OutboxMailer(store.outbox, clock, logger);
    const externalLogins = new ExternalLogins({ logins: store.externalLogins, sessions: store.sessions, audit, mailer, clock, logger, securityChanges, unitOfWork: store.unitOfWork });
    const resolver = new ExternalSignIn({ logins: store.externalLogins, users: store.users, audit, clock, trustsEmail: () => true });
    providerSignIn = new ProviderSignIn({ resolver, externalLogins, sessions, logins: store.externalLogins, users: store.users, audit, clock });
    user = await store.users.create({
      email: 'ada@example.com',
      normalizedEmail: 'ada@example.com',
      userName: null,
      normalizedUserName: null,
      passwordHash: '$argon2id$x',
      emailConfirmed: true,
      createdAt: clock.now(),
    });
  });
  afterEach(() => store.close());

  const callback = (overrides: Partial<CallbackContext> = {}): CallbackContext => ({
    ip: CLIENT.ip,
    client: CLIENT,
    rememberedClient: () => false,
    session: null,
    ...overrides,
  });
  const events = async () => (await store.audit.list({ limit: 50 })).map(({ type, userId, detail }) => ({ type, userId, detail }));
  const liveSessions = async () => (await store.userSessions.list(user.id, clock.now())).length;

  it('links a login matched by e-mail, opens a session in place of the one the browser held, and writes signin.succeeded', async () => {
    const previous = await sessions.signIn(user, { persistent: false, method: 'password', client: CLIENT });

    const outcome = await providerSignIn.signIn(IDENTITY, callback({ session: { token: previous.token, client: CLIENT } }));

    expect(outcome).toMatchObject({ kind: 'signed-in', user: { id: user.id } });
    expect((await sessions.validate(previous.token)).valid).toBe(false);
    expect(await liveSessions()).toBe(1);
    const opened = outcome.kind === 'signed-in' ? await sessions.validate(outcome.session.token) : null;
    expect(opened).toMatchObject({ valid: true, method: 'external:acme', persistent: false });
    expect(await store.externalLogins.find('acme', 'sub-1')).toMatchObject({ userId: user.id });
    expect(await events()).toEqual(
      expect.arrayContaining([
        { type: 'external.linked', userId: user.id, detail: { provider: 'acme', how: 'email' } },
        { type: 'signin.succeeded', userId: user.id, detail: { factor: 'external:acme' } },
      ]),
    );
  });

  it('refuses a locked account with one external.refused, linking nothing and opening no session', async () => {
    await store.users.setAdminLock(user.id, true);

    expect(await providerSignIn.signIn(IDENTITY, callback())).toEqual({ kind: 'refused', reason: 'locked-out' });

    expect(await events()).toEqual([{ type: 'external.refused', userId: null, detail: { provider: 'acme', reason: 'locked-out' } }]);
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();
    expect(await liveSessions()).toBe(0);
  });

  it('leaves the link and the session to the second step when the user has two-factor on', async () => {
    await store.twoFactor.setPendingKey(user.id, 'a sealed key');
    await store.twoFactor.enable(user.id, { sealedKey: 'a sealed key', step: 1, recoveryCodeHashes: [], now: 1 });

    const outcome = await providerSignIn.signIn(IDENTITY, callback());

    expect(outcome).toMatchObject({ kind: 'two-factor', user: { id: user.id, twoFactorEnabled: true }, link: { provider: 'acme', subject: 'sub-1' } });
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();
    expect(await liveSessions()).toBe(0);
    expect(await events()).toEqual([]);
  });

  it('links from the profile only for the browser signed in as that user, recording the refusal otherwise', async () => {
    const other = await store.users.create({ email: 'bo@example.com', normalizedEmail: 'bo@example.com', userName: null, normalizedUserName: null, passwordHash: '$argon2id$x', emailConfirmed: true, createdAt: 1 });
    const othersSession = await sessions.signIn(other, { persistent: false, method: 'password', client: CLIENT });

    expect(await providerSignIn.linkToAccount(user.id, IDENTITY, { ip: CLIENT.ip, session: { token: othersSession.token, client: CLIENT } })).toBe('link-without-session');
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();

    const own = await sessions.signIn(user, { persistent: false, method: 'password', client: CLIENT });
    expect(await providerSignIn.linkToAccount(user.id, IDENTITY, { ip: CLIENT.ip, session: { token: own.token, client: CLIENT } })).toBe('linked');
    expect((await events()).filter((event) => event.type === 'external.refused')).toEqual([
      { type: 'external.refused', userId: null, detail: { provider: 'acme', reason: 'link-without-session' } },
    ]);
  });

});
