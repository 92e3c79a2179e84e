/**
 * SEC-37 (revocation triggers) and SEC-40 (no privilege drift) for refresh tokens (docs/reference/tokens.md: a security change ends every refresh family of the user; a claims change does
 * not, but the next access token carries the current claims). Pins that:
 *   - an admin lock makes the family's next refresh 401, and unlocking does not revive it
 *     (only a new sign-in works again);
 *   - deleting the user makes the refresh 401;
 *   - removing a role keeps the family alive, and the refreshed access token's `role` claim no
 *     longer has it (adding one shows up too); extra body fields (`scope`) are refused (400);
 *   - the request body cannot widen what the new access token carries.
 * The concurrent lock race is in refresh-token-race.test.ts. On each store engine.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

interface Pair {
  accessToken: string;
  refreshToken: string;
}

async function signIn(ctx: TestApp, roles: string[] = []) {
  const { user, password } = await ctx.createUser({ roles });
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return { user, password, pair: json<Pair>(response) };
}

function refresh(ctx: TestApp, refreshToken: string) {
  return ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
}

/** The JWT payload, read without verifying (the test inspects what the service issued). */
function claimsOf(accessToken: string): Record<string, unknown> {
  const parts = accessToken.split('.');
  expect(parts).toHaveLength(3);
  return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe.each(engines)('refresh families and security changes on $engine (SEC-37)', (engine) => {
  const ctx = useTestApp(engine);

  it('refuses the next refresh after an admin lock, and unlocking does not revive the family', async () => {
    const { user, password, pair } = await signIn(ctx);
    const r2 = json<Pair>(await refresh(ctx, pair.refreshToken)).refreshToken;
    expect(await ctx.services.users.lock(user.id)).toBe(true);

    const locked = await refresh(ctx, r2);
    expect(locked.statusCode).toBe(401);
    expect(locked.body).toBe('');

    expect(await ctx.services.users.unlock(user.id)).toBe(true);
    expect((await refresh(ctx, r2)).statusCode).toBe(401);
    expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);

    // The account itself works again: a new sign-in starts a new, working family.
    const again = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
    expect(again.statusCode).toBe(200);
    expect((await refresh(ctx, json<Pair>(again).refreshToken)).statusCode).toBe(200);
  });

  it('refuses a refresh after unlock even when the locked token was never tried while locked', async () => {
    const { user, pair } = await signIn(ctx);
    await ctx.services.users.lock(user.id);
    await ctx.services.users.unlock(user.id);
    expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);
  });

  it('ends every family of the user at an admin lock, not only the one in use', async () => {
    const { user, password, pair } = await signIn(ctx);
    const other = json<Pair>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }));
    const bystander = await signIn(ctx);
    await ctx.services.users.lock(user.id);
    expect((await refresh(ctx, pair.refreshToken)).statusCode).toBe(401);
    expect((await refresh(ctx, other.refreshToken)).statusCode).toBe(401);
    expect((await refresh(ctx, bystander.pair.refreshToken)).statusCode).toBe(200);
  });

  it('refuses the refresh of a deleted user', async () => {
    const { user, pair } = await signIn(ctx);
    const r2 = json<Pair>(await refresh(ctx, pair.refreshToken)).refreshToken;
    expect(await ctx.services.users.delete(user.id)).toBe(true);
    const response = await refresh(ctx, r2);
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('');
  });
});

describe.each(engines)('no privilege drift through refresh on $engine (SEC-40)', (engine) => {
  const ctx = useTestApp(engine);

  it('issues an access token without a role removed since the sign-in, and the family lives on', async () => {
    const { user, pair } = await signIn(ctx, ['Admin', 'Editor']);
    expect(claimsOf(pair.accessToken).role).toEqual(expect.arrayContaining(['Admin', 'Editor']));
    expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(pair.accessToken) })).statusCode).toBe(200);

    expect(await ctx.services.users.removeRole(user.id, 'Admin')).toBe(true);
    const response = await refresh(ctx, pair.refreshToken);
    expect(response.statusCode).toBe(200);
    const next = json<Pair>(response);
    const role = claimsOf(next.accessToken).role;
    expect(role).toEqual(['Editor']);
    expect(role).not.toContain('Admin');
    // The new token works, but no longer for admins.
    expect((await ctx.app.inject({ url: '/me', headers: bearer(next.accessToken) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(next.accessToken) })).statusCode).toBe(403);
    // A claims change is no security change: the family rotates on.
    expect((await refresh(ctx, next.refreshToken)).statusCode).toBe(200);
  });

  it('carries a role added since the sign-in and the current custom claims into the refreshed token', async () => {
    const { user, pair } = await signIn(ctx);
    expect(claimsOf(pair.accessToken).role).toEqual([]);
    await ctx.services.users.addRole(user.id, 'Editor');
    await ctx.services.users.addClaim(user.id, { type: 'subscription', value: 'premium' });
    const next = json<Pair>(await refresh(ctx, pair.refreshToken));
    expect(claimsOf(next.accessToken)).toMatchObject({ role: ['Editor'], subscription: 'premium', sub: String(user.id) });
  });

  it('refuses extra fields in the refresh body (scope, role) with 400, and the token stays usable with the same claims', async () => {
    const { pair } = await signIn(ctx);
    for (const extra of [{ scope: 'admin' }, { scope: 'openid admin' }, { role: 'Admin' }, { roles: ['Admin'] }, { claims: [{ type: 'role', value: 'Admin' }] }]) {
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken, ...extra } });
      expect(response.statusCode, JSON.stringify(extra)).toBe(400);
      expect(response.body).not.toContain('accessToken');
    }
    const next = json<Pair>(await refresh(ctx, pair.refreshToken));
    const claims = claimsOf(next.accessToken);
    expect(claims.role).toEqual([]);
    expect(claims).not.toHaveProperty('scope');
  });
});
