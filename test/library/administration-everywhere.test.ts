/**
 * The administration rules hold for every caller, the application's own code included: a change
 * made through `app.gatehouse` writes its security event (docs/reference/security-events.md) and
 * refuses the credentials it takes away at once, as the same change through the admin API does.
 * The services and Gatehouse's own tables are no part of what the application is given.
 */
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

describe('the application administers through app.gatehouse', () => {
  const ctx = useTestApp(sqlite!);

  const me = (token: string) => ctx.app.inject({ url: '/me', headers: bearer(token) });
  const latestEvent = async (): Promise<AuditEvent> => (await ctx.app.gatehouse.audit.page({ limit: 1 })).events[0]!;

  it('a role taken away by the application is audited, and the access token of before it is refused at once', async () => {
    const { user } = await ctx.createUser({ roles: ['Editor'] });
    const token = await ctx.tokenFor(user);
    expect((await me(token)).statusCode).toBe(200);

    expect(await ctx.app.gatehouse.users.removeRole(user.id, 'Editor')).toBe(true);

    expect(await latestEvent()).toMatchObject({ type: 'role.removed', userId: user.id, ip: null, detail: { role: 'Editor', by: 'application' } });
    expect((await me(token)).statusCode).toBe(401);
    // Nothing to take away: nothing written, nothing announced.
    const before = await latestEvent();
    expect(await ctx.app.gatehouse.users.removeRole(user.id, 'Editor')).toBe(false);
    expect(await latestEvent()).toEqual(before);
  });

  it('a role granted by the application names the admin it acted for, and refuses older tokens', async () => {
    const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);

    expect(await ctx.app.gatehouse.users.addRole(user.id, 'Auditor', { by: admin.id, ip: '203.0.113.9' })).toBe(true);

    expect(await latestEvent()).toMatchObject({ type: 'role.added', userId: user.id, ip: '203.0.113.9', detail: { role: 'Auditor', by: admin.id } });
    expect((await me(token)).statusCode).toBe(401);
    expect((await me(await ctx.tokenFor((await ctx.app.gatehouse.users.findById(user.id))!))).statusCode).toBe(200);
  });

  it('a lock by the application is audited and ends the user\'s tokens; an unlock is audited and revokes nothing', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);

    expect(await ctx.app.gatehouse.users.lock(user.id)).toBe(true);
    expect(await latestEvent()).toMatchObject({ type: 'user.locked', userId: user.id, detail: { by: 'application' } });
    expect((await me(token)).statusCode).toBe(401);
    expect((await ctx.app.gatehouse.users.list()).find((summary) => summary.id === user.id)?.lockedOut).toBe(true);

    expect(await ctx.app.gatehouse.users.unlock(user.id)).toBe(true);
    expect(await latestEvent()).toMatchObject({ type: 'user.unlocked', userId: user.id });
    expect((await me(token)).statusCode, 'a lock is a security change: the tokens of before it stay dead').toBe(401);
  });

  it('keeps an admin who can sign in, as the admin API does (409, nothing changed)', async () => {
    const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
    await expect(ctx.app.gatehouse.users.removeRole(admin.id, 'Admin')).rejects.toMatchObject({ code: 'GH_CONFLICT' });
    await expect(ctx.app.gatehouse.users.lock(admin.id)).rejects.toMatchObject({ code: 'GH_CONFLICT' });
    await expect(ctx.app.gatehouse.users.delete(admin.id)).rejects.toMatchObject({ code: 'GH_CONFLICT' });
    expect((await ctx.app.gatehouse.users.findById(admin.id))?.roles).toEqual(['Admin']);
  });

  it('a deletion by the application is audited and ends the user\'s tokens', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    expect(await ctx.app.gatehouse.users.delete(user.id)).toBe(true);
    expect(await latestEvent()).toMatchObject({ type: 'user.deleted', userId: user.id, detail: { by: 'application' } });
    expect((await me(token)).statusCode).toBe(401);
    expect(await ctx.app.gatehouse.users.delete(user.id)).toBe(false);
  });

  it('API keys created and revoked by the application are audited, and refused at once', async () => {
    const key = await ctx.app.gatehouse.apiKeys.create('billing');
    const created = await latestEvent();
    expect(created).toMatchObject({ type: 'apikey.created', userId: null, ip: null });
    expect(created.detail).toEqual({ client: 'billing', keyId: expect.any(Number), by: 'application' });
    expect(JSON.stringify(created)).not.toContain(key.split('_')[2]!);
    const whoami = () => ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } });
    expect((await whoami()).statusCode).toBe(200);
    expect(await ctx.app.gatehouse.apiKeys.list()).toEqual([expect.objectContaining({ client: 'billing', activeKeys: 1 })]);

    expect(await ctx.app.gatehouse.apiKeys.revoke('billing')).toBe(1);

    expect(await latestEvent()).toMatchObject({ type: 'apikey.revoked', detail: { client: 'billing', keys: 1, by: 'application' } });
    expect((await whoami()).statusCode).toBe(401);
  });

  it('ending a user\'s sessions is audited and refuses its access tokens at once', async () => {
    const { user, password } = await ctx.createUser();
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    const { accessToken } = JSON.parse(signIn.body) as { accessToken: string };
    expect((await me(accessToken)).statusCode).toBe(200);

    expect(await ctx.app.gatehouse.sessions.endAll(user.id)).toBe(1);

    expect(await latestEvent()).toMatchObject({ type: 'sessions.revoked', userId: user.id, detail: { count: 1, by: 'application' } });
    expect((await me(accessToken)).statusCode).toBe(401);
  });

  it('a revoked signing key is audited, and tokens it signed are refused at once', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    const { kid } = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string };

    const revocation = await ctx.app.gatehouse.signingKeys.revoke(kid);

    expect(revocation.revoked).toBe(true);
    expect(revocation.newKid).not.toBeNull();
    const [revoked, rotated] = (await ctx.app.gatehouse.audit.page({ limit: 2 })).events;
    expect(revoked).toMatchObject({ type: 'key.revoked', detail: { kid, by: 'application' } });
    expect(rotated).toMatchObject({ type: 'key.rotated', detail: { kid: revocation.newKid } });
    expect((await me(token)).statusCode).toBe(401);
    expect((await me(await ctx.tokenFor(user))).statusCode).toBe(200);
  });

  it('reads the audit trail in pages, newest first', async () => {
    const { user } = await ctx.createUser();
    for (const role of ['A1', 'A2', 'A3']) await ctx.app.gatehouse.users.addRole(user.id, role);
    const first = await ctx.app.gatehouse.audit.page({ limit: 2 });
    expect(first.events.map((event) => event.detail?.role)).toEqual(['A3', 'A2']);
    const second = await ctx.app.gatehouse.audit.page({ limit: 2, before: first.next! });
    expect(second.events[0]!.detail?.role).toBe('A1');
  });

  it('offers no services and no raw store: the store is the application\'s own tables, the engine and the data version', () => {
    expect(Object.keys(ctx.app.gatehouse)).not.toContain('services');
    expect(Object.keys(ctx.app.gatehouse.store).sort()).toEqual(['dataVersion', 'database', 'engine']);
    expect(ctx.app.gatehouse.store).not.toHaveProperty('users');
    expect(ctx.app.gatehouse.store).not.toHaveProperty('audit');
  });
});
