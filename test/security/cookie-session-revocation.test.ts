/**
 * SEC-06 / SEC-92 across instances (docs/reference/http.md, docs/reference/tokens.md and docs/reference/persistence.md): two instances on one database
 * accept each other's auth cookies; a sign-out, an admin lock or a deletion on one ends the
 * cookie on the other within 5 seconds (here: at once, since every check reads the session and
 * the user's security stamp from the store). A role change keeps the session, with the new role.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const PUBLIC_URL = 'http://gatehouse.test';

async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(engines)('cookie sessions across two instances on $engine', (engine) => {
  let a: TestApp;
  let b: TestApp;
  beforeEach(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    a = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    b = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await engine.dropAll();
  });

  const profileOn = (instance: TestApp, cookie: string) => instance.app.inject({ url: '/account/profile', headers: { cookie } });
  const endsOnB = (cookie: string) => within(PROPAGATION_MS, async () => (await profileOn(b, cookie)).statusCode === 401);
  const asAdmin = async () => bearer(await a.tokenFor((await a.createUser({ roles: ['Admin'] })).user));

  it('accepts a cookie issued by the other instance', async () => {
    const { cookie, user } = await signInWithCookie(a);
    const response = await profileOn(b, cookie);
    expect(response.statusCode).toBe(200);
    expect(json(response).id).toBe(user.id);
  });

  it('ends the session everywhere at sign-out', async () => {
    const { cookie } = await signInWithCookie(a);
    expect((await profileOn(b, cookie)).statusCode).toBe(200);
    expect((await a.app.inject({ method: 'POST', url: '/account/logout', headers: { cookie } })).statusCode).toBe(204);
    expect(await endsOnB(cookie)).toBe(true);
  });

  it("ends an admin-locked user's session on the other instance, and unlocking does not revive it", async () => {
    const { cookie, user } = await signInWithCookie(a);
    expect((await profileOn(b, cookie)).statusCode).toBe(200);
    const admin = await asAdmin();
    expect((await a.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers: admin })).statusCode).toBe(204);
    expect(await endsOnB(cookie)).toBe(true);
    expect((await a.app.inject({ method: 'POST', url: `/admin/users/${user.id}/unlock`, headers: admin })).statusCode).toBe(204);
    expect((await profileOn(b, cookie)).statusCode).toBe(401);
  });

  it("ends a deleted user's session on the other instance", async () => {
    const { cookie, user } = await signInWithCookie(a);
    expect((await profileOn(b, cookie)).statusCode).toBe(200);
    expect((await a.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}`, headers: await asAdmin() })).statusCode).toBe(204);
    expect(await endsOnB(cookie)).toBe(true);
  });

  it('keeps the session through a role change, with the new role on the other instance', async () => {
    const { cookie, user } = await signInWithCookie(a);
    const added = await a.app.inject({ method: 'POST', url: `/admin/users/${user.id}/roles`, headers: await asAdmin(), payload: { role: 'Editor' } });
    expect(added.statusCode).toBe(204);
    const response = await profileOn(b, cookie);
    expect(response.statusCode).toBe(200);
    expect(json(response).roles).toEqual(['Editor']);
  });
});
