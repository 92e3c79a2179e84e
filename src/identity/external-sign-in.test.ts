import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../audit/audit-log.ts';
import { ManualClock } from '../platform/clock.ts';
import { createLogger } from '../platform/logger.ts';
import { createStore } from '../store/create-store.ts';
import type { Store } from '../store/ports.ts';
import { ExternalSignIn } from './external-sign-in.ts';

describe('ExternalSignIn: the linking rule of docs/reference/http.md', () => {
  let store: Store;
  let signIn: (trusted: boolean) => ExternalSignIn;

  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
    const clock = new ManualClock();
    const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
    const audit = new AuditLog(store.audit, clock, logger);
    signIn = (trusted) => new ExternalSignIn({ logins: store.externalLogins, users: store.users, audit, clock, trustsEmail: () => trusted });
  });
  afterEach(() => store.close());

  const local = (email: string, confirmed: boolean) =>
    store.users.create({ email, normalizedEmail: email, userName: null, normalizedUserName: null, passwordHash: '$argon2id$x', emailConfirmed: confirmed, createdAt: 1 });
  const identity = (overrides: Record<string, unknown> = {}) => ({ provider: 'acme', subject: 'sub-1', email: 'ada@example.com', emailVerified: true, ...overrides });
  const events = async () => (await store.audit.list({ limit: 20 })).map((event) => event.type);

  it('creates a confirmed user for a verified, free e-mail, and finds it by (provider, subject) next time', async () => {
    const first = await signIn(false).resolve(identity());
    expect(first).toMatchObject({ kind: 'created', user: { email: 'ada@example.com', emailConfirmed: true, passwordHash: null } });
    const again = await signIn(false).resolve(identity({ email: 'changed@example.com' }));
    expect(again).toMatchObject({ kind: 'existing' });
    expect(await events()).toContain('external.linked');
  });

  it('names a confirmed account to link only for a trusted provider asserting the e-mail verified, and links nothing itself', async () => {
    const user = await local('ada@example.com', true);
    expect(await signIn(false).resolve(identity())).toEqual({ kind: 'refused', reason: 'email-taken' });
    expect(await signIn(true).resolve(identity({ emailVerified: false }))).toEqual({ kind: 'refused', reason: 'email-not-verified' });
    expect(await signIn(true).resolve(identity({ email: 'ADA@example.com' }))).toMatchObject({
      kind: 'link-by-email',
      user: { id: user.id },
      login: { provider: 'acme', subject: 'sub-1' },
    });
    // The caller links once the sign-in completes; refusals are the caller's to record.
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();
    expect(await events()).toEqual([]);
  });

  it('never names an account for an address that NFKC changes, on either side', async () => {
    await local('victim@example.com', true);
    for (const lookalike of ['\uFF56ictim@example.com', '\u{1D42F}ictim@example.com']) {
      expect(await signIn(true).resolve(identity({ email: lookalike }))).toEqual({ kind: 'refused', reason: 'email-not-exact' });
    }
    await store.users.create({ email: '\uFB01sh@example.com', normalizedEmail: 'fish@example.com', userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 });
    expect(await signIn(true).resolve(identity({ email: 'fish@example.com' }))).toEqual({ kind: 'refused', reason: 'email-not-exact' });
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();
  });

  it('creates no account for a look-alike address whose plain form is free', async () => {
    expect(await signIn(true).resolve(identity({ email: '\uFF56acant@example.com' }))).toEqual({ kind: 'refused', reason: 'email-not-exact' });
    expect(await store.users.findByNormalizedEmail('vacant@example.com')).toBeNull();
  });

  it('refuses to name an account that has a login of the provider already', async () => {
    const user = await local('ada@example.com', true);
    await store.externalLogins.add({ userId: user.id, provider: 'acme', subject: 'older', createdAt: 1 });
    expect(await signIn(true).resolve(identity())).toEqual({ kind: 'refused', reason: 'email-taken' });
  });

  it('never links to an unconfirmed account, even from a trusted provider', async () => {
    await local('ada@example.com', false);
    expect(await signIn(true).resolve(identity())).toEqual({ kind: 'refused', reason: 'email-taken' });
    expect(await store.externalLogins.find('acme', 'sub-1')).toBeNull();
  });

  it('creates nobody without a verified e-mail', async () => {
    expect(await signIn(true).resolve(identity({ emailVerified: undefined }))).toEqual({ kind: 'refused', reason: 'email-not-verified' });
    expect(await signIn(true).resolve(identity({ email: undefined }))).toEqual({ kind: 'refused', reason: 'no-email' });
    expect(await store.users.list()).toEqual([]);
  });
});
