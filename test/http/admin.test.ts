/**
 * The admin API (docs/reference/http.md, `/admin/*` under the group policy `AdminOnly`; section 5 for what
 * each change revokes; section 10 for the audit events), through `app.inject` on each store engine.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

type Method = 'GET' | 'POST' | 'DELETE';
interface AdminRequest {
  readonly method: Method;
  readonly url: string;
  readonly payload?: Record<string, unknown>;
}

interface UserSummary {
  id: number;
  email: string;
  userName: string | null;
  roles: string[];
  lockedOut: boolean;
  emailConfirmed: boolean;
}

interface AuditEntry {
  id: number;
  type: string;
  userId: number | null;
  at: string;
  ip: string | null;
  detail: Record<string, unknown> | null;
}

interface AuditPage {
  events: AuditEntry[];
  next: number | null;
}

/** Every route of the admin API, aimed at user `id`. */
function adminRoutes(id: number | string): AdminRequest[] {
  return [
    { method: 'GET', url: '/admin/users' },
    { method: 'DELETE', url: `/admin/users/${id}` },
    { method: 'POST', url: `/admin/users/${id}/roles`, payload: { role: 'Auditor' } },
    { method: 'DELETE', url: `/admin/users/${id}/roles/Editor` },
    { method: 'POST', url: `/admin/users/${id}/lock` },
    { method: 'POST', url: `/admin/users/${id}/unlock` },
    { method: 'GET', url: '/admin/audit' },
  ];
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

describe.each(engines)('admin API on $engine', (engine) => {
  const ctx = useTestApp(engine);

  async function adminHeaders(): Promise<Record<string, string>> {
    const { user } = await ctx.createUser({ roles: ['Admin'] });
    return bearer(await ctx.tokenFor(user));
  }

  function send(request: AdminRequest, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return ctx.app.inject({
      method: request.method,
      url: request.url,
      headers,
      ...(request.payload ? { payload: request.payload } : {}),
    });
  }

  async function signIn(login: { email: string } | { userName: string }, password: string) {
    return ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { ...login, password } });
  }

  /** Signs in through `POST /auth/token`; the pair a client would hold. */
  async function tokensOf(user: User, password: string): Promise<{ accessToken: string; refreshToken: string }> {
    const response = await signIn({ email: user.email }, password);
    expect(response.statusCode, response.body).toBe(200);
    return json<{ accessToken: string; refreshToken: string }>(response);
  }

  async function meStatus(accessToken: string): Promise<number> {
    return (await ctx.app.inject({ url: '/me', headers: bearer(accessToken) })).statusCode;
  }

  /** POST /auth/refresh; a success rotates the token, so probe only tokens meant to be dead. */
  async function refreshStatus(refreshToken: string): Promise<number> {
    return (await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } })).statusCode;
  }

  async function listUsers(headers: Record<string, string>): Promise<UserSummary[]> {
    const response = await ctx.app.inject({ url: '/admin/users', headers });
    expect(response.statusCode).toBe(200);
    return json<UserSummary[]>(response);
  }

  async function summaryOf(headers: Record<string, string>, id: number): Promise<UserSummary | undefined> {
    return (await listUsers(headers)).find((user) => user.id === id);
  }

  function rolesInToken(accessToken: string): string[] {
    const payload = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { role: string[] };
    return payload.role;
  }

  async function auditEvents(headers: Record<string, string>, query = ''): Promise<AuditPage> {
    const response = await ctx.app.inject({ url: `/admin/audit${query}`, headers });
    expect(response.statusCode, response.body).toBe(200);
    return json<AuditPage>(response);
  }

  /** The target's state as the store holds it, to prove a refused call changed nothing. */
  async function stateOf(id: number) {
    const user = await ctx.services.store.users.findById(id);
    return user && { roles: user.roles, lockedByAdmin: user.lockedByAdmin, securityStamp: user.securityStamp, claimsStamp: user.claimsStamp };
  }

  describe('protection (group policy AdminOnly)', () => {
    it('answers every route 401 without credentials, before looking at the id or the body, and changes nothing', async () => {
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const before = await stateOf(user.id);
      const requests = [
        ...adminRoutes(user.id),
        { method: 'DELETE' as const, url: '/admin/users/abc' },
        { method: 'POST' as const, url: `/admin/users/${user.id}/roles`, payload: { role: 'Admin', unknown: true } },
        { method: 'GET' as const, url: '/admin/audit?limit=abc' },
      ];
      for (const request of requests) {
        const response = await send(request);
        expect(response.statusCode, `${request.method} ${request.url}`).toBe(401);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
        expect(json(response)).toMatchObject({ status: 401 });
      }
      expect(await stateOf(user.id)).toEqual(before);
    });

    it('answers every route 403 problem+json with policy ["Bearer"] to a signed-in user without role Admin, "admin" in lower case included, and changes nothing', async () => {
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const before = await stateOf(user.id);
      const plain = await ctx.createUser();
      const lowerCase = await ctx.createUser({ roles: ['admin', 'ADMIN', 'Administrator'] });
      for (const caller of [plain.user, lowerCase.user, user]) {
        const headers = bearer(await ctx.tokenFor(caller));
        for (const request of [...adminRoutes(user.id), { method: 'DELETE' as const, url: '/admin/users/abc' }]) {
          const response = await send(request, headers);
          expect(response.statusCode, `${caller.roles.join(',')} ${request.method} ${request.url}`).toBe(403);
          expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(json(response)).toMatchObject({ title: 'Forbidden', status: 403, policy: ['Bearer'] });
        }
      }
      expect(await stateOf(user.id)).toEqual(before);
    });

    it('answers every route 403 to an API-key caller (it has no role), naming the ApiKey scheme', async () => {
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const before = await stateOf(user.id);
      const headers = { 'x-api-key': await ctx.apiKey() };
      for (const request of adminRoutes(user.id)) {
        const response = await send(request, headers);
        expect(response.statusCode, `${request.method} ${request.url}`).toBe(403);
        expect(json(response)).toMatchObject({ status: 403, policy: ['ApiKey'] });
      }
      expect(await stateOf(user.id)).toEqual(before);
    });

    it('lets role Admin use every route', async () => {
      const headers = await adminHeaders();
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const expected = [200, 204, 204, 204, 204, 204, 200];
      // Delete last: every other route needs the user to exist.
      const routes = adminRoutes(user.id);
      const order = [0, 2, 3, 4, 5, 6, 1];
      for (const index of order) {
        const response = await send(routes[index]!, headers);
        expect(response.statusCode, `${routes[index]!.method} ${routes[index]!.url}`).toBe(expected[index]);
      }
    });
  });

  describe('GET /admin/users', () => {
    it('lists every user as {id, email, userName, roles, lockedOut, emailConfirmed}, and nothing more', async () => {
      const headers = await adminHeaders();
      const named = await ctx.createUser({ userName: 'dora_admin_view', roles: ['Editor', 'Auditor'] });
      const unconfirmed = await ctx.createUser({ emailConfirmed: false });
      const users = await listUsers(headers);
      expect(users).toHaveLength(3);
      for (const entry of users) {
        expect(Object.keys(entry).sort()).toEqual(['email', 'emailConfirmed', 'id', 'lockedOut', 'roles', 'userName']);
      }
      expect(users.find((entry) => entry.id === named.user.id)).toEqual({
        id: named.user.id,
        email: named.user.email,
        userName: 'dora_admin_view',
        roles: ['Auditor', 'Editor'],
        lockedOut: false,
        emailConfirmed: true,
      });
      expect(users.find((entry) => entry.id === unconfirmed.user.id)).toEqual({
        id: unconfirmed.user.id,
        email: unconfirmed.user.email,
        userName: null,
        roles: [],
        lockedOut: false,
        emailConfirmed: false,
      });
      expect(freeOfSecrets(JSON.stringify(users), [named.password, unconfirmed.password])).toBe(true);
    });
  });

  describe('DELETE /admin/users/:id', () => {
    it('answers 204, removes the user, and ends its access token and refresh token at once', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser({ roles: ['Editor'] });
      const { accessToken, refreshToken } = await tokensOf(user, password);
      // Accepted (and so remembered by the verified-token cache) before the deletion.
      expect(await meStatus(accessToken)).toBe(200);

      const response = await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}`, headers });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');

      expect(await meStatus(accessToken)).toBe(401);
      expect(await refreshStatus(refreshToken)).toBe(401);
      expect(await summaryOf(headers, user.id)).toBeUndefined();
      expect(await ctx.services.store.users.findById(user.id)).toBeNull();
      expect((await signIn({ email: user.email }, password)).statusCode).toBe(401);
    });

    it('answers 404 for an unknown user and 400 naming the id for a non-integer one', async () => {
      const headers = await adminHeaders();
      const unknown = await ctx.app.inject({ method: 'DELETE', url: '/admin/users/999999', headers });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
      for (const id of ['abc', '1.5', '0', '-1', '1e3']) {
        const response = await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${id}`, headers });
        expect(response.statusCode, id).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(json<{ errors: object }>(response).errors).toHaveProperty('id');
      }
    });

    it('deleting a user twice answers 404 the second time', async () => {
      const headers = await adminHeaders();
      const { user } = await ctx.createUser();
      expect((await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}`, headers })).statusCode).toBe(204);
      expect((await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}`, headers })).statusCode).toBe(404);
    });
  });

  describe('roles (a claims change)', () => {
    it('POST /admin/users/:id/roles answers 204: the role is listed, the older access token is refused, a new one carries the role and works', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser({ roles: ['Editor'] });
      const older = await tokensOf(user, password);
      expect(await meStatus(older.accessToken)).toBe(200);
      expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(older.accessToken) })).statusCode).toBe(403);

      const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/roles`, headers, payload: { role: 'Admin' } });
      expect(response.statusCode).toBe(204);
      expect((await summaryOf(headers, user.id))?.roles).toEqual(['Admin', 'Editor']);

      expect(await meStatus(older.accessToken)).toBe(401);
      const newer = await tokensOf(user, password);
      expect(rolesInToken(newer.accessToken)).toEqual(expect.arrayContaining(['Admin', 'Editor']));
      expect(await meStatus(newer.accessToken)).toBe(200);
      // The new role takes effect: the new token passes AdminOnly.
      expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(newer.accessToken) })).statusCode).toBe(200);
    });

    it('a role change is no security change: the refresh token of before it still works and yields a token with the new roles', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser({ roles: ['Editor'] });
      const older = await tokensOf(user, password);
      expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/roles`, headers, payload: { role: 'Auditor' } })).statusCode).toBe(204);
      const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: older.refreshToken } });
      expect(refreshed.statusCode).toBe(200);
      const { accessToken } = json<{ accessToken: string }>(refreshed);
      expect(rolesInToken(accessToken)).toEqual(expect.arrayContaining(['Auditor', 'Editor']));
      expect(await meStatus(accessToken)).toBe(200);
    });

    it('DELETE /admin/users/:id/roles/:role answers 204: the role leaves the list, the older token is refused, a new one lacks the role', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser({ roles: ['Admin', 'Editor'] });
      const older = await tokensOf(user, password);
      expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(older.accessToken) })).statusCode).toBe(200);

      const response = await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/roles/Admin`, headers });
      expect(response.statusCode).toBe(204);
      expect((await summaryOf(headers, user.id))?.roles).toEqual(['Editor']);

      expect(await meStatus(older.accessToken)).toBe(401);
      expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(older.accessToken) })).statusCode).toBe(401);
      const newer = await tokensOf(user, password);
      expect(rolesInToken(newer.accessToken)).toEqual(['Editor']);
      expect(await meStatus(newer.accessToken)).toBe(200);
      expect((await ctx.app.inject({ url: '/admin/users', headers: bearer(newer.accessToken) })).statusCode).toBe(403);
    });

    it('treats role names as case-sensitive: removing "editor" leaves "Editor"', async () => {
      const headers = await adminHeaders();
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/roles/editor`, headers });
      expect((await summaryOf(headers, user.id))?.roles).toEqual(['Editor']);
    });

    it('answers 404 for an unknown user on both, and 400 for a bad id or body', async () => {
      const headers = await adminHeaders();
      const add = await ctx.app.inject({ method: 'POST', url: '/admin/users/999999/roles', headers, payload: { role: 'Editor' } });
      expect(add.statusCode).toBe(404);
      const remove = await ctx.app.inject({ method: 'DELETE', url: '/admin/users/999999/roles/Editor', headers });
      expect(remove.statusCode).toBe(404);
      const { user } = await ctx.createUser();
      for (const payload of [{}, { role: '' }, { role: 42 }, { role: 'Editor', extra: 1 }]) {
        const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/roles`, headers, payload });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      }
      expect((await ctx.app.inject({ method: 'POST', url: '/admin/users/abc/roles', headers, payload: { role: 'Editor' } })).statusCode).toBe(400);
      expect((await ctx.app.inject({ method: 'DELETE', url: '/admin/users/1.5/roles/Editor', headers })).statusCode).toBe(400);
      expect((await ctx.services.store.users.findById(user.id))?.roles).toEqual([]);
    });
  });

  describe('lock and unlock', () => {
    it('POST …/lock answers 204: access and refresh tokens stop at once, lockedOut is true, and the right password gets the generic 401', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser({ userName: 'locked_one' });
      const { accessToken, refreshToken } = await tokensOf(user, password);
      expect(await meStatus(accessToken)).toBe(200);

      const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers });
      expect(response.statusCode).toBe(204);

      expect(await meStatus(accessToken)).toBe(401);
      expect(await refreshStatus(refreshToken)).toBe(401);
      expect((await summaryOf(headers, user.id))?.lockedOut).toBe(true);

      const generic = await signIn({ email: 'nobody-at-all@example.com' }, password);
      for (const login of [{ email: user.email }, { userName: 'locked_one' }]) {
        const refused = await signIn(login, password);
        expect(refused.statusCode).toBe(401);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.body).toBe(generic.body);
        expect(json(refused)).not.toHaveProperty('isLockedOut');
        expect(json(refused)).not.toHaveProperty('isNotAllowed');
      }
    });

    it('POST …/unlock answers 204: sign-in works again, lockedOut is false, and the tokens of before the lock stay dead', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser();
      const old = await tokensOf(user, password);
      expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers })).statusCode).toBe(204);
      expect((await signIn({ email: user.email }, password)).statusCode).toBe(401);

      const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/unlock`, headers });
      expect(response.statusCode).toBe(204);
      expect((await summaryOf(headers, user.id))?.lockedOut).toBe(false);

      const fresh = await tokensOf(user, password);
      expect(await meStatus(fresh.accessToken)).toBe(200);
      expect(await meStatus(old.accessToken)).toBe(401);
      expect(await refreshStatus(old.refreshToken)).toBe(401);
      expect((await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: fresh.refreshToken } })).statusCode).toBe(200);
    });

    it('a lock lasts until unlocked, and unlocking a user that is not locked is harmless', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser();
      expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/unlock`, headers })).statusCode).toBe(204);
      expect(await meStatus((await tokensOf(user, password)).accessToken)).toBe(200);
      expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers })).statusCode).toBe(204);
      expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers })).statusCode).toBe(204);
      expect((await summaryOf(headers, user.id))?.lockedOut).toBe(true);
      expect((await signIn({ email: user.email }, password)).statusCode).toBe(401);
    });

    it('answers 404 for an unknown user and 400 for a non-integer id', async () => {
      const headers = await adminHeaders();
      for (const action of ['lock', 'unlock']) {
        expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/999999/${action}`, headers })).statusCode, action).toBe(404);
        expect((await ctx.app.inject({ method: 'POST', url: `/admin/users/abc/${action}`, headers })).statusCode, action).toBe(400);
      }
    });
  });

  describe('the last admin (409: the API keeps one admin who can sign in)', () => {
    /** The caller as an admin: its token's headers, and itself. */
    async function admin(): Promise<{ user: User; headers: Record<string, string> }> {
      const { user } = await ctx.createUser({ roles: ['Admin', 'Editor'] });
      return { user, headers: bearer(await ctx.tokenFor(user)) };
    }
    const selfRemovals = (id: number): [string, AdminRequest][] => [
      ['lock', { method: 'POST', url: `/admin/users/${id}/lock` }],
      ['delete', { method: 'DELETE', url: `/admin/users/${id}` }],
      ['demote', { method: 'DELETE', url: `/admin/users/${id}/roles/Admin` }],
    ];

    /** 409 problem+json, the user and its token as they were, and no audit event of a change. */
    async function expectRefusedAsLastAdmin(request: AdminRequest, self: { user: User; headers: Record<string, string> }) {
      const before = await stateOf(self.user.id);
      const response = await send(request, self.headers);
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(409);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(json(response)).toMatchObject({ status: 409, title: 'Conflict', code: 'GH_CONFLICT', type: 'urn:gatehouse:problem:conflict' });
      expect(json<{ detail: string }>(response).detail).toMatch(/Admin/);
      expect(await stateOf(self.user.id)).toEqual(before);
      expect((await listUsers(self.headers)).find((entry) => entry.id === self.user.id)).toMatchObject({ roles: ['Admin', 'Editor'], lockedOut: false });
      const events = await ctx.services.store.audit.list({ limit: 100 });
      const changes = events.filter((event) => event.userId === self.user.id && ['user.locked', 'user.deleted', 'role.removed'].includes(event.type));
      expect(changes).toEqual([]);
    }

    for (const [attack, index] of [['lock', 0], ['delete', 1], ['demote', 2]] as const) {
      it(`the last admin cannot ${attack} itself: 409, nothing changed`, async () => {
        const self = await admin();
        await expectRefusedAsLastAdmin(selfRemovals(self.user.id)[index]![1], self);
      });
    }

    it('an admin-locked admin is no admin that remains: the only one who can sign in cannot lock, delete or demote itself either', async () => {
      const self = await admin();
      const { user: locked } = await ctx.createUser({ roles: ['Admin'] });
      expect((await send({ method: 'POST', url: `/admin/users/${locked.id}/lock` }, self.headers)).statusCode).toBe(204);
      for (const [, request] of selfRemovals(self.user.id)) await expectRefusedAsLastAdmin(request, self);
    });

    it('an admin may lock, delete or demote itself while another admin who can sign in remains', async () => {
      for (const [attack, index] of [['lock', 0], ['delete', 1], ['demote', 2]] as const) {
        const self = await admin();
        const other = await admin();
        const response = await send(selfRemovals(self.user.id)[index]![1], self.headers);
        expect(response.statusCode, attack).toBe(204);
        // What remains is the last admin now, refused in its turn.
        await expectRefusedAsLastAdmin(selfRemovals(other.user.id)[index]![1], other);
        // Out of the way of the next round: the CLI's way, which keeps nobody.
        await ctx.services.users.lock(other.user.id);
      }
    });

    it('two admins demoting each other at once leave one admin: one 204, and the other 409 (or 401, its token older than its demotion)', async () => {
      const [first, second] = [await admin(), await admin()];
      const responses = await Promise.all([
        send({ method: 'DELETE', url: `/admin/users/${second.user.id}/roles/Admin` }, first.headers),
        send({ method: 'DELETE', url: `/admin/users/${first.user.id}/roles/Admin` }, second.headers),
      ]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses[0]).toBe(204);
      expect([401, 409]).toContain(statuses[1]);
      const admins = (await ctx.services.users.list()).filter((user) => user.roles.includes('Admin'));
      expect(admins).toHaveLength(1);
    });
  });

  describe('audit', () => {
    it('records user.deleted, role.added, role.removed, user.locked and user.unlocked with the userId and the caller ip', async () => {
      const headers = await adminHeaders();
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const steps: [AdminRequest, string][] = [
        [{ method: 'POST', url: `/admin/users/${user.id}/roles`, payload: { role: 'Auditor' } }, 'role.added'],
        [{ method: 'DELETE', url: `/admin/users/${user.id}/roles/Editor` }, 'role.removed'],
        [{ method: 'POST', url: `/admin/users/${user.id}/lock` }, 'user.locked'],
        [{ method: 'POST', url: `/admin/users/${user.id}/unlock` }, 'user.unlocked'],
        [{ method: 'DELETE', url: `/admin/users/${user.id}` }, 'user.deleted'],
      ];
      for (const [request] of steps) {
        const response = await ctx.app.inject({ method: request.method, url: request.url, headers, remoteAddress: '203.0.113.7', ...(request.payload ? { payload: request.payload } : {}) });
        expect(response.statusCode, request.url).toBe(204);
      }
      const { events } = await auditEvents(headers);
      const mine = events.filter((event) => event.userId === user.id).reverse();
      expect(mine.map((event) => event.type)).toEqual(steps.map(([, type]) => type));
      for (const event of mine) expect(event.ip, event.type).toBe('203.0.113.7');
      expect(mine.find((event) => event.type === 'role.added')?.detail).toMatchObject({ role: 'Auditor' });
      expect(mine.find((event) => event.type === 'role.removed')?.detail).toMatchObject({ role: 'Editor' });
    });

    it('GET /admin/audit answers {events:[{id, type, userId, at, ip, detail}], next}, newest first, with `at` in ISO-8601 UTC', async () => {
      const headers = await adminHeaders();
      const { user, password } = await ctx.createUser();
      await tokensOf(user, password);
      await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/lock`, headers });
      const page = await auditEvents(headers);
      expect(Object.keys(page).sort()).toEqual(['events', 'next']);
      expect(page.next).toBeNull();
      const stored = await ctx.services.store.audit.list({ limit: 1000 });
      expect(page.events).toHaveLength(stored.length);
      expect(page.events.length).toBeGreaterThanOrEqual(2);
      for (const [index, event] of page.events.entries()) {
        expect(Object.keys(event).sort()).toEqual(['at', 'detail', 'id', 'ip', 'type', 'userId']);
        expect(event.at).toMatch(ISO_UTC);
        expect(event.at).toBe(new Date(stored[index]!.at).toISOString());
        expect(event.id).toBe(stored[index]!.id);
        if (index > 0) expect(event.id).toBeLessThan(page.events[index - 1]!.id);
      }
      expect(page.events[0]).toMatchObject({ type: 'user.locked', userId: user.id, ip: '127.0.0.1' });
      expect(page.events[1]).toMatchObject({ type: 'signin.succeeded', userId: user.id });
      expect(JSON.stringify(page)).not.toContain(password);
    });

    it('limit defaults to 50 and is at most 200; 201, 0 and abc answer 400', async () => {
      const headers = await adminHeaders();
      for (let index = 0; index < 205; index += 1) {
        await ctx.services.audit.record('key.rotated', { detail: { index } });
      }
      const first = await auditEvents(headers);
      expect(first.events).toHaveLength(50);
      expect(first.events[0]!.detail).toEqual({ index: 204 });
      expect(first.next).toBe(first.events[49]!.id);
      const most = await auditEvents(headers, '?limit=200');
      expect(most.events).toHaveLength(200);
      expect(most.next).toBe(most.events[199]!.id);
      for (const limit of ['201', '0', 'abc', '-1', '1.5', '1000']) {
        const response = await ctx.app.inject({ url: `/admin/audit?limit=${limit}`, headers });
        expect(response.statusCode, limit).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(json<{ errors: object }>(response).errors, limit).toHaveProperty('limit');
      }
      expect((await ctx.app.inject({ url: '/admin/audit?before=abc', headers })).statusCode).toBe(400);
    });

    it('pages with next as before: every event exactly once, in order, and next is null on the last page', async () => {
      const headers = await adminHeaders();
      for (let index = 0; index < 23; index += 1) {
        await ctx.services.audit.record('key.rotated', { detail: { index } });
      }
      const all = (await ctx.services.store.audit.list({ limit: 1000 })).map((event) => event.id);
      expect(all).toHaveLength(23);

      for (const limit of [7, 23, 22, 1]) {
        const seen: number[] = [];
        let before: number | null = null;
        let pages = 0;
        do {
          const page: AuditPage = await auditEvents(headers, `?limit=${limit}${before === null ? '' : `&before=${before}`}`);
          pages += 1;
          expect(page.events.length).toBeLessThanOrEqual(limit);
          expect(page.events.length).toBeGreaterThan(0);
          if (before !== null) for (const event of page.events) expect(event.id).toBeLessThan(before);
          seen.push(...page.events.map((event) => event.id));
          if (page.next !== null) {
            expect(page.events).toHaveLength(limit);
            expect(page.next).toBe(page.events.at(-1)!.id);
          }
          before = page.next;
          expect(pages).toBeLessThanOrEqual(all.length);
        } while (before !== null);
        expect(seen, `limit ${limit}`).toEqual(all);
        expect(pages, `limit ${limit}`).toBe(Math.ceil(all.length / limit));
      }
    });
  });
});

function freeOfSecrets(text: string, secrets: string[]): boolean {
  return secrets.every((secret) => !text.includes(secret)) && !/passwordHash|securityStamp|\$argon2/.test(text);
}
