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
    expect(first).toMatchObject({ kind: 'signed-in', how: 'created', user: { email: 'ada@example.com', emailConfirmed: true, passwordHash: null } });
    const again = await signIn(false).resolve(identity({ email: 'changed@example.com' }));
    expect(again).toMatchObject({ kind: 'signed-in', how: 'existing' });
    expect(await events()).toContain('external.linked');
  });

  it('links to a confirmed account only from a trusted provider asserting the e-mail verified', async () => {
    const user = await local('ada@example.com', true);
    expect(await signIn(false).resolve(identity())).toEqual({ kind: 'refused', reason: 'email-taken' });
    expect(await signIn(true).resolve(identity({ emailVerified: false }))).toEqual({ kind: 'refused', reason: 'email-not-verified' });
    expect(await signIn(true).resolve(identity())).toMatchObject({ kind: 'signed-in', how: 'linked', user: { id: user.id } });
    expect(await events()).toEqual(expect.arrayContaining(['external.refused', 'external.linked']));
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
