/**
 * A change and its security event commit together or not at all: when the audit row cannot be
 * written, the change is rolled back whole, nothing is announced (the credentials it would have
 * taken away still work) and no security event is logged. The audit table refuses every insert
 * here through a trigger, on each engine.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { TestEngine } from '../helpers/databases.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

/** Makes every insert into the audit table fail, as a full disk or a broken audit table would. */
async function refuseAuditInserts(engine: TestEngine, database: { kysely<DB>(): import('kysely').Kysely<DB> }): Promise<void> {
  const db = database.kysely();
  const audit = engine.table('audit');
  if (engine.engine === 'sqlite') {
    await sql.raw(`create trigger refuse_audit before insert on ${audit} begin select raise(abort, 'audit refused'); end`).execute(db);
    return;
  }
  await sql.raw(`create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`).execute(db);
  await sql.raw(`create trigger refuse_audit before insert on ${audit} for each row execute function refuse_audit()`).execute(db);
}

describe.each(engines)('a change whose security event cannot be written, on $engine', (engine) => {
  const ctx = useTestApp(engine);

  const me = (token: string) => ctx.app.inject({ url: '/me', headers: bearer(token) });
  const securityEventLines = () => ctx.logs.filter((line) => line.includes('security event'));
  const refuseAudit = () => refuseAuditInserts(engine, ctx.services.store.database);

  it('a role grant is rolled back whole: no role, no revocation, no log line', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    await refuseAudit();
    const logged = securityEventLines().length;

    await expect(ctx.app.gatehouse.users.addRole(user.id, 'Auditor')).rejects.toThrow(/audit refused/);

    expect((await ctx.app.gatehouse.users.findById(user.id))?.roles).toEqual([]);
    expect((await me(token)).statusCode, 'nothing was revoked: the token of before stays good').toBe(200);
    expect(securityEventLines()).toHaveLength(logged);
  });

  it('a lock is rolled back whole: the user is not locked and keeps signing in', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    await refuseAudit();

    await expect(ctx.app.gatehouse.users.lock(user.id)).rejects.toThrow(/audit refused/);

    expect(ctx.app.gatehouse.users.isLockedOut((await ctx.app.gatehouse.users.findById(user.id))!)).toBe(false);
    expect((await me(token)).statusCode).toBe(200);
    expect(securityEventLines()).toHaveLength(0);
  });

  it('an API key revocation is rolled back whole: the key still works', async () => {
    const key = await ctx.app.gatehouse.apiKeys.create('billing');
    await refuseAudit();

    await expect(ctx.app.gatehouse.apiKeys.revoke('billing')).rejects.toThrow(/audit refused/);

    expect(await ctx.app.gatehouse.apiKeys.list()).toEqual([expect.objectContaining({ client: 'billing', activeKeys: 1 })]);
    expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } })).statusCode).toBe(200);
  });

  it('ending every session is rolled back whole: the access token stays good', async () => {
    const { user, password } = await ctx.createUser();
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    const { accessToken } = JSON.parse(signIn.body) as { accessToken: string };
    await refuseAudit();

    await expect(ctx.app.gatehouse.sessions.endAll(user.id)).rejects.toThrow(/audit refused/);

    expect((await me(accessToken)).statusCode).toBe(200);
    expect((await ctx.app.gatehouse.sessions.list(user.id)).length).toBe(1);
  });

  it('a password change is rolled back whole: the old password and the token of before stay', async () => {
    const { user, password } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    await refuseAudit();

    const passwords = { currentPassword: password, newPassword: 'an entirely new passphrase here' };
    await expect(ctx.services.passwordChange.change(user, passwords, { by: user.id, ip: null }, null)).rejects.toThrow(/audit refused/);

    expect((await me(token)).statusCode).toBe(200);
    // A sign-in writes its own event, which the table refuses too: the stored hash tells instead.
    const stored = (await ctx.app.gatehouse.users.findById(user.id))!;
    expect(stored.passwordHash, 'the old password is still the one').toBe(user.passwordHash);
    expect(stored.securityStamp).toBe(user.securityStamp);
    expect(securityEventLines().filter((line) => line.includes('password.changed'))).toHaveLength(0);
  });

  it('a signing key revocation is rolled back whole: the key still signs and verifies', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };
    await refuseAudit();

    await expect(ctx.app.gatehouse.signingKeys.revoke(kid)).rejects.toThrow(/audit refused/);

    expect((await me(token)).statusCode).toBe(200);
    expect(ctx.services.keyRing.current.kid, 'no successor was added').toBe(kid);
    const jwks = JSON.parse((await ctx.app.inject({ url: '/.well-known/jwks.json' })).body) as { keys: { kid: string }[] };
    expect(jwks.keys.map((key) => key.kid)).toEqual([kid]);
  });

  it('once the audit table takes rows again, the same change goes through and is logged once', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);

    expect(await ctx.app.gatehouse.users.addRole(user.id, 'Auditor')).toBe(true);

    expect(securityEventLines().filter((line) => line.includes('role.added'))).toHaveLength(1);
    expect((await me(token)).statusCode).toBe(401);
  });
});
