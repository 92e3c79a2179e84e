/**
 * "Where you are signed in" (docs/reference/http.md): `GET /account/sessions` lists the user's cookie
 * sessions and refresh-token families, `DELETE /account/sessions/:id` ends one,
 * `POST /account/sessions/revoke-others` all but the caller's own, and the admin API lists and
 * ends a user's. Each ended credential stops working at once here (other instances:
 * test/instances/session-revocation.test.ts); each ending is audited.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { LAST_USE_INTERVAL_MS } from '../../src/identity/sessions.ts';
import type { User } from '../../src/store/ports.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

interface Listed {
  id: string;
  kind: 'cookie' | 'token';
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  userAgent: string | null;
  ip: string | null;
  method: string | null;
}

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A cookie session of `user` opened from a browser of `userAgent`: the Cookie header value. */
async function browserSignIn(ctx: TestApp, user: User, password: string, userAgent = 'Browser/1'): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { 'user-agent': userAgent }, payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return cookiePair(authSetCookie(response)!);
}

/** A token client of `user`: its pair. */
async function appSignIn(ctx: TestApp, user: User, password: string, userAgent = 'App/1'): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'user-agent': userAgent }, payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return json(response);
}

/** The family an access token names (`gh_sid`), as the list names it. */
function familyIdOf(ctx: TestApp, accessToken: string): string {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { gh_sid: number };
  return ctx.services.userSessions.ids.format({ kind: 'token', id: payload.gh_sid });
}

async function list(ctx: TestApp, headers: Record<string, string>): Promise<Listed[]> {
  const response = await ctx.app.inject({ url: '/account/sessions', headers });
  expect(response.statusCode).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  return json<Listed[]>(response);
}

describe.each(engines)('where you are signed in, on $label', (engine) => {
  const ctx = useTestApp(engine);

  it('lists the cookie sessions and token families of the user, each with its shape, the request\'s own cookie session marked current', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browserSignIn(ctx, user, password, 'Browser/here');
    const elsewhere = await browserSignIn(ctx, user, password, 'Browser/elsewhere');
    const app = await appSignIn(ctx, user, password, 'App/1');
    // Another user's sessions are not listed.
    const other = await ctx.createUser();
    await browserSignIn(ctx, other.user, other.password);

    const listed = await list(ctx, { cookie: here });
    expect(listed).toHaveLength(3);
    for (const session of listed) {
      expect(Object.keys(session).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'kind', 'lastSeenAt', 'method', 'userAgent']);
      expect(session.id).toEqual(expect.any(String));
      for (const time of [session.createdAt, session.lastSeenAt, session.expiresAt]) expect(time).toMatch(ISO_UTC);
      expect(session.method).toBe('password');
      expect(session.ip).toBe('127.0.0.1');
    }
    expect(new Set(listed.map((session) => session.id)).size).toBe(3);
    expect(listed.filter((session) => session.current).map((session) => session.userAgent)).toEqual(['Browser/here']);
    expect(listed.map(({ kind, userAgent }) => `${kind} ${userAgent}`).sort()).toEqual(['cookie Browser/elsewhere', 'cookie Browser/here', 'token App/1']);
    expect(listed.find((session) => session.kind === 'token')?.id).toBe(familyIdOf(ctx, app.accessToken));

    // From the other browser, that one is current; a bearer caller has none.
    expect((await list(ctx, { cookie: elsewhere })).filter((session) => session.current).map((session) => session.userAgent)).toEqual(['Browser/elsewhere']);
    expect((await list(ctx, bearer(app.accessToken))).some((session) => session.current)).toBe(false);
  });

  it('cuts a long user agent to the 256 characters a session keeps', async () => {
    const { user, password } = await ctx.createUser();
    const cookie = await browserSignIn(ctx, user, password, `Browser/${'x'.repeat(1_000)}`);
    const [session] = await list(ctx, { cookie });
    expect(session!.userAgent).toHaveLength(256);
  });

  it('answers 404 for another user\'s session or family, an unknown id and a malformed one, and ends nothing', async () => {
    const { user, password } = await ctx.createUser();
    const mine = await browserSignIn(ctx, user, password);
    const other = await ctx.createUser();
    const theirs = await browserSignIn(ctx, other.user, other.password);
    const theirApp = await appSignIn(ctx, other.user, other.password);
    const theirIds = (await list(ctx, { cookie: theirs })).map((session) => session.id);
    expect(theirIds).toHaveLength(2);

    for (const id of [...theirIds, 'c999999', 't999999', 'x1', 'c0', '1', 'c1.5']) {
      const response = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${encodeURIComponent(id)}`, headers: { cookie: mine } });
      expect(response.statusCode, id).toBe(404);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
    expect(await list(ctx, { cookie: theirs })).toHaveLength(2);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(theirApp.accessToken) })).statusCode).toBe(200);
  });

  it('names sessions with ids that tell nothing of how many were opened, and refuses one altered by a character', async () => {
    const { user, password } = await ctx.createUser();
    const cookie = await browserSignIn(ctx, user, password);
    for (let more = 0; more < 3; more += 1) await appSignIn(ctx, user, password);
    const ids = (await list(ctx, { cookie })).map((session) => session.id);
    expect(ids).toHaveLength(4);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      // No row id in any form: neither the number nor a letter followed by it.
      expect(id).not.toMatch(/^[ct]?\d+$/);
    }
    const [first] = ids;
    const altered = `${first!.slice(0, 10)}${first![10] === 'A' ? 'B' : 'A'}${first!.slice(11)}`;
    const response = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${altered}`, headers: { cookie } });
    expect(response.statusCode).toBe(404);
    expect(await list(ctx, { cookie })).toHaveLength(4);
  });

  it('ends one cookie session at once (its cookie no longer works), leaving the others, and audits it', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browserSignIn(ctx, user, password);
    const elsewhere = await browserSignIn(ctx, user, password);
    const target = (await list(ctx, { cookie: elsewhere })).find((session) => session.current)!;

    const ended = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${target.id}`, headers: { cookie: here } });
    expect(ended.statusCode).toBe(204);
    expect(ended.body).toBe('');
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: elsewhere } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: here } })).statusCode).toBe(200);
    expect((await list(ctx, { cookie: here })).map((session) => session.id)).not.toContain(target.id);

    const [event] = await ctx.services.store.audit.list({ limit: 1 });
    expect(event).toMatchObject({ type: 'session.revoked', userId: user.id, detail: { session: target.id, kind: 'cookie' } });
    // Again: it is gone.
    expect((await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${target.id}`, headers: { cookie: here } })).statusCode).toBe(404);
  });

  it('ends one token family at once: its access token and its refresh token are refused, the other family goes on', async () => {
    const { user, password } = await ctx.createUser();
    const cookie = await browserSignIn(ctx, user, password);
    const ended = await appSignIn(ctx, user, password);
    const kept = await appSignIn(ctx, user, password);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(ended.accessToken) })).statusCode).toBe(200);

    const response = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${familyIdOf(ctx, ended.accessToken)}`, headers: { cookie } });
    expect(response.statusCode).toBe(204);
    const refused = await ctx.app.inject({ url: '/me', headers: bearer(ended.accessToken) });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('invalid_token');
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: ended.refreshToken } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(kept.accessToken) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: kept.refreshToken } })).statusCode).toBe(200);
  });

  it("ends the request's own cookie session like a sign-out, clearing its cookie", async () => {
    const { user, password } = await ctx.createUser();
    const cookie = await browserSignIn(ctx, user, password);
    const own = (await list(ctx, { cookie })).find((session) => session.current)!;
    const response = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${own.id}`, headers: { cookie } });
    expect(response.statusCode).toBe(204);
    expect(authSetCookie(response)).toMatch(/^gh\.auth=;.*Expires=Thu, 01 Jan 1970/);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);
  });

  it('a bearer caller may end its own family, whose token is then refused', async () => {
    const { user, password } = await ctx.createUser();
    const app = await appSignIn(ctx, user, password);
    const response = await ctx.app.inject({ method: 'DELETE', url: `/account/sessions/${familyIdOf(ctx, app.accessToken)}`, headers: bearer(app.accessToken) });
    expect(response.statusCode).toBe(204);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(app.accessToken) })).statusCode).toBe(401);
  });

  it('ends every other session and family with revoke-others, keeping the current cookie session, and audits it', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browserSignIn(ctx, user, password);
    const elsewhere = await browserSignIn(ctx, user, password);
    const app = await appSignIn(ctx, user, password);
    const other = await ctx.createUser();
    const theirs = await browserSignIn(ctx, other.user, other.password);

    const response = await ctx.app.inject({ method: 'POST', url: '/account/sessions/revoke-others', headers: { cookie: here } });
    expect(response.statusCode).toBe(204);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: here } })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: elsewhere } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(app.accessToken) })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: app.refreshToken } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: theirs } })).statusCode).toBe(200);
    const listed = await list(ctx, { cookie: here });
    expect(listed.map((session) => session.current)).toEqual([true]);

    const [event] = await ctx.services.store.audit.list({ limit: 1 });
    expect(event).toMatchObject({ type: 'sessions.revoked', userId: user.id, detail: { count: 2, kept: 'current' } });
  });

  it('keeps the family of a bearer caller\'s own token at revoke-others', async () => {
    const { user, password } = await ctx.createUser();
    const cookie = await browserSignIn(ctx, user, password);
    const mine = await appSignIn(ctx, user, password);
    const another = await appSignIn(ctx, user, password);
    const response = await ctx.app.inject({ method: 'POST', url: '/account/sessions/revoke-others', headers: bearer(mine.accessToken) });
    expect(response.statusCode).toBe(204);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(mine.accessToken) })).statusCode).toBe(200);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(another.accessToken) })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);
    expect((await list(ctx, bearer(mine.accessToken))).map((session) => session.id)).toEqual([familyIdOf(ctx, mine.accessToken)]);
  });

  it('refuses an API-key caller (it acts for no user) and an anonymous one', async () => {
    const key = await ctx.apiKey();
    expect((await ctx.app.inject({ url: '/account/sessions', headers: { 'x-api-key': key } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/account/sessions' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/sessions/revoke-others' })).statusCode).toBe(401);
  });

  describe('the admin API', () => {
    it("lists a user's sessions (none current) and ends all of them without a lock, audited with that user's id", async () => {
      const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
      const adminHeaders = bearer(await ctx.tokenFor(admin));
      const { user, password } = await ctx.createUser();
      const cookie = await browserSignIn(ctx, user, password);
      const app = await appSignIn(ctx, user, password);

      const listed = await ctx.app.inject({ url: `/admin/users/${user.id}/sessions`, headers: adminHeaders });
      expect(listed.statusCode).toBe(200);
      const sessions = json<Listed[]>(listed);
      expect(sessions.map((session) => session.kind).sort()).toEqual(['cookie', 'token']);
      expect(sessions.some((session) => session.current)).toBe(false);
      expect(sessions).toEqual(await list(ctx, bearer(app.accessToken)));

      const ended = await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/sessions`, headers: adminHeaders });
      expect(ended.statusCode).toBe(204);
      expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);
      expect((await ctx.app.inject({ url: '/me', headers: bearer(app.accessToken) })).statusCode).toBe(401);
      expect(json<Listed[]>(await ctx.app.inject({ url: `/admin/users/${user.id}/sessions`, headers: adminHeaders }))).toEqual([]);
      const [event] = await ctx.services.store.audit.list({ limit: 1 });
      expect(event).toMatchObject({ type: 'sessions.revoked', userId: user.id, detail: { count: 2, by: admin.id } });
      // No lock: the user signs in again at once.
      await browserSignIn(ctx, user, password);
    });

    it('answers 404 for an unknown user, 400 for a non-integer id, and 403 to a caller without the role', async () => {
      const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
      const adminHeaders = bearer(await ctx.tokenFor(admin));
      for (const method of ['GET', 'DELETE'] as const) {
        expect((await ctx.app.inject({ method, url: '/admin/users/999999/sessions', headers: adminHeaders })).statusCode).toBe(404);
        for (const id of ['abc', '1.5', '-1', '0']) {
          const response = await ctx.app.inject({ method, url: `/admin/users/${id}/sessions`, headers: adminHeaders });
          expect(response.statusCode, `${method} ${id}`).toBe(400);
        }
      }
      const { user } = await ctx.createUser();
      expect((await ctx.app.inject({ url: `/admin/users/${admin.id}/sessions`, headers: bearer(await ctx.tokenFor(user)) })).statusCode).toBe(403);
    });
  });
});

describe.each(engines)('the last use of a session, on $label', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 2, 2, 12));
  const ctx = useTestApp(engine, { clock });

  const lastSeen = async (userId: number, kind: 'cookie' | 'token') =>
    (await ctx.services.store.userSessions.list(userId, clock.now())).find((session) => session.kind === kind)!.lastSeenAt;

  it('is written for a cookie session at most once a minute, with the client of the use', async () => {
    const { user, password } = await ctx.createUser();
    const signedInAt = clock.now();
    const cookie = await browserSignIn(ctx, user, password, 'Browser/1');
    const use = (userAgent: string) => ctx.app.inject({ url: '/account/profile', headers: { cookie, 'user-agent': userAgent } });

    clock.advance(LAST_USE_INTERVAL_MS - 1_000);
    expect((await use('Browser/2')).statusCode).toBe(200);
    expect(await lastSeen(user.id, 'cookie')).toBe(signedInAt);
    clock.advance(1_000);
    expect((await use('Browser/3')).statusCode).toBe(200);
    const firstRecorded = clock.now();
    expect(await lastSeen(user.id, 'cookie')).toBe(firstRecorded);
    expect((await ctx.services.store.userSessions.list(user.id, clock.now()))[0]).toMatchObject({ userAgent: 'Browser/3' });
    clock.advance(30_000);
    expect((await use('Browser/4')).statusCode).toBe(200);
    expect(await lastSeen(user.id, 'cookie')).toBe(firstRecorded);
    clock.advance(30_000);
    expect((await use('Browser/5')).statusCode).toBe(200);
    expect(await lastSeen(user.id, 'cookie')).toBe(clock.now());
  });

  it('is each refresh for a token family; bearer requests do not count', async () => {
    const { user, password } = await ctx.createUser();
    const signedInAt = clock.now();
    const pair = await appSignIn(ctx, user, password);
    clock.advance(5 * LAST_USE_INTERVAL_MS);
    expect((await ctx.app.inject({ url: '/me', headers: bearer(pair.accessToken) })).statusCode).toBe(200);
    expect(await lastSeen(user.id, 'token')).toBe(signedInAt);
    const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', headers: { 'user-agent': 'App/2' }, payload: { refreshToken: pair.refreshToken } });
    expect(refreshed.statusCode).toBe(200);
    expect(await lastSeen(user.id, 'token')).toBe(clock.now());
    clock.advance(1_000);
    const again = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: json<{ refreshToken: string }>(refreshed).refreshToken } });
    expect(again.statusCode).toBe(200);
    expect(await lastSeen(user.id, 'token')).toBe(clock.now());
  });
});

describe.each(engines.slice(0, 1))('the client address behind a trusted proxy, on $label', (engine) => {
  const ctx = useTestApp(engine, { env: { TRUST_PROXY: 'true' } });

  it('records the forwarded address as TRUST_PROXY allows it', async () => {
    const { user, password } = await ctx.createUser();
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/account/login',
      headers: { 'x-forwarded-for': '203.0.113.9' },
      payload: { email: user.email, password },
    });
    expect(response.statusCode).toBe(200);
    const [session] = await list(ctx, { cookie: cookiePair(authSetCookie(response)!), 'x-forwarded-for': '203.0.113.9' });
    expect(session!.ip).toBe('203.0.113.9');
  });
});
