/**
 * The admin API (endpoints/admin) through the Web-standard handler (`fetchHandler`), its endpoints
 * carrying their group `ADMIN_GROUP` themselves, over the use cases of a real instance on SQLite, beside the same requests
 * through the Fastify app: the same status, content type and body for the list of users, role
 * grants (a SuperAdmin grant by an Admin 403, nothing changed), lock and unlock, deletion, audit
 * paging (a bad limit 400), a user's sessions listed and ended; 401 to an anonymous caller and
 * 403 to a user without role Admin on every endpoint.
 */
import type { LightMyRequestResponse } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { adminEndpoints, adminSessionEndpoints } from '../../src/endpoints/admin/admin-endpoints.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import type { User } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

type Method = 'GET' | 'POST' | 'DELETE';
type Headers = Record<string, string>;

/** The address both hosts see the caller at (light-my-request's default), so audit events agree. */
const IP = '127.0.0.1';

/** Status, content type and body: what both hosts must agree on. */
interface Shape {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: unknown;
}

const bodyOf = (text: string): unknown => (text === '' ? null : JSON.parse(text));

describe('the admin API through fetchHandler', () => {
  const ctx = useTestApp(sqlite!);
  let handle: FetchHandler;

  beforeEach(() => {
    const { evaluator, policies, config, users, audit, sessions } = ctx.app.gatehouse;
    const endpoints = [...adminEndpoints({ users, auditTrail: audit }), ...adminSessionEndpoints({ users, sessions })];
    handle = fetchHandler(endpoints, { evaluator, policies, trustedOrigins: [config.publicUrl.origin] });
  });

  async function viaFetch(method: Method, url: string, headers: Headers = {}, payload?: object): Promise<Shape> {
    const init = payload === undefined ? { method, headers } : { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(payload) };
    const response = await handle(new Request(`http://gh.test${url}`, init), { ip: IP });
    return { status: response.status, contentType: response.headers.get('content-type'), body: bodyOf(await response.text()) };
  }

  async function viaFastify(method: Method, url: string, headers: Headers = {}, payload?: object): Promise<Shape> {
    const response: LightMyRequestResponse = await ctx.app.inject({ method, url, headers, remoteAddress: IP, ...(payload === undefined ? {} : { payload }) });
    return { status: response.statusCode, contentType: (response.headers['content-type'] as string | undefined) ?? null, body: bodyOf(response.body) };
  }

  /** The same request on both hosts, for requests that change nothing (or are refused). */
  async function onBoth(method: Method, url: string, headers: Headers = {}, payload?: object): Promise<Shape> {
    const fetched = await viaFetch(method, url, headers, payload);
    expect(fetched, `${method} ${url}`).toEqual(await viaFastify(method, url, headers, payload));
    return fetched;
  }

  async function caller(roles: string[]): Promise<{ user: User; headers: Headers }> {
    const { user } = await ctx.createUser({ roles });
    return { user, headers: bearer(await ctx.tokenFor(user)) };
  }

  const rolesOf = async (id: number) => (await ctx.services.store.users.findById(id))?.roles;

  /** Every endpoint, aimed at user `id`. */
  const everyEndpoint = (id: number): [Method, string, object?][] => [
    ['GET', '/admin/users'],
    ['DELETE', `/admin/users/${id}`],
    ['POST', `/admin/users/${id}/roles`, { role: 'Auditor' }],
    ['DELETE', `/admin/users/${id}/roles/Editor`],
    ['POST', `/admin/users/${id}/lock`],
    ['POST', `/admin/users/${id}/unlock`],
    ['GET', '/admin/audit'],
    ['GET', `/admin/users/${id}/sessions`],
    ['DELETE', `/admin/users/${id}/sessions`],
  ];

  it('answers every endpoint 401 to an anonymous caller and 403 to a user without role Admin, as Fastify does, changing nothing', async () => {
    const { user } = await ctx.createUser({ roles: ['Editor'] });
    const plain = await caller(['Editor']);
    for (const [method, url, payload] of everyEndpoint(user.id)) {
      const anonymous = await onBoth(method, url, {}, payload);
      expect(anonymous, `${method} ${url}`).toMatchObject({ status: 401, contentType: 'application/problem+json; charset=utf-8' });
      const forbidden = await onBoth(method, url, plain.headers, payload);
      expect(forbidden, `${method} ${url}`).toMatchObject({ status: 403, body: { status: 403, policy: ['Bearer'] } });
    }
    const anonymous = await handle(new Request('http://gh.test/admin/users'));
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await rolesOf(user.id)).toEqual(['Editor']);
    expect((await ctx.services.store.users.findById(user.id))?.lockedByAdmin).toBe(false);
  });

  it('lists the users as Fastify does', async () => {
    const admin = await caller(['Admin']);
    await ctx.createUser({ userName: 'dora', roles: ['Editor', 'Auditor'] });
    const listed = await onBoth('GET', '/admin/users', admin.headers);
    expect(listed.status).toBe(200);
    expect(listed.contentType).toBe('application/json; charset=utf-8');
    expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ userName: 'dora', roles: ['Auditor', 'Editor'], lockedOut: false })]));
    expect(listed.body).toHaveLength(2);
  });

  it('grants and takes a role with 204, and answers an unknown user 404 and a bad id 400, as Fastify does', async () => {
    const admin = await caller(['Admin']);
    const { user: ada } = await ctx.createUser();
    const { user: bob } = await ctx.createUser();
    expect(await viaFetch('POST', `/admin/users/${ada.id}/roles`, admin.headers, { role: 'Auditor' })).toEqual({ status: 204, contentType: null, body: null });
    expect(await viaFastify('POST', `/admin/users/${bob.id}/roles`, admin.headers, { role: 'Auditor' })).toMatchObject({ status: 204, body: null });
    expect(await rolesOf(ada.id)).toEqual(['Auditor']);
    expect(await rolesOf(bob.id)).toEqual(['Auditor']);
    const [granted] = await ctx.services.store.audit.list({ limit: 2 });
    expect(granted).toMatchObject({ type: 'role.added', ip: IP, detail: expect.objectContaining({ by: admin.user.id }) });

    expect((await viaFetch('DELETE', `/admin/users/${ada.id}/roles/Auditor`, admin.headers)).status).toBe(204);
    expect((await viaFastify('DELETE', `/admin/users/${bob.id}/roles/Auditor`, admin.headers)).status).toBe(204);
    expect(await rolesOf(ada.id)).toEqual([]);
    expect(await rolesOf(bob.id)).toEqual([]);

    expect(await onBoth('POST', '/admin/users/999999/roles', admin.headers, { role: 'Auditor' })).toMatchObject({ status: 404, body: { code: 'GH_NOT_FOUND' } });
    expect(await onBoth('POST', '/admin/users/1.5/roles', admin.headers, { role: 'Auditor' })).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED' } });
    expect(await onBoth('POST', `/admin/users/${ada.id}/roles`, admin.headers, { role: 'Auditor', extra: 1 })).toMatchObject({ status: 400 });
  });

  it('refuses an Admin who grants or takes SuperAdmin 403 on both hosts, whatever the id, and changes nothing', async () => {
    const admin = await caller(['Admin']);
    const { user: target } = await ctx.createUser();
    const { user: superAdmin } = await ctx.createUser({ roles: ['SuperAdmin'] });
    for (const id of [target.id, admin.user.id, 999_999]) {
      const granted = await onBoth('POST', `/admin/users/${id}/roles`, admin.headers, { role: 'SuperAdmin' });
      expect(granted).toMatchObject({ status: 403, contentType: 'application/problem+json; charset=utf-8', body: { status: 403 } });
    }
    expect(await onBoth('DELETE', `/admin/users/${superAdmin.id}/roles/SuperAdmin`, admin.headers)).toMatchObject({ status: 403 });
    expect(await rolesOf(target.id)).toEqual([]);
    expect(await rolesOf(admin.user.id)).toEqual(['Admin']);
    expect(await rolesOf(superAdmin.id)).toEqual(['SuperAdmin']);
    // A SuperAdmin may.
    const holder = await caller(['Admin', 'SuperAdmin']);
    expect((await viaFetch('POST', `/admin/users/${target.id}/roles`, holder.headers, { role: 'SuperAdmin' })).status).toBe(204);
    expect(await rolesOf(target.id)).toEqual(['SuperAdmin']);
  });

  it('locks and unlocks with 204, the lock ending the user\'s access tokens, as Fastify does', async () => {
    const admin = await caller(['Admin']);
    const ada = await caller([]);
    const bob = await caller([]);
    expect(await viaFetch('POST', `/admin/users/${ada.user.id}/lock`, admin.headers)).toEqual({ status: 204, contentType: null, body: null });
    expect((await viaFastify('POST', `/admin/users/${bob.user.id}/lock`, admin.headers)).status).toBe(204);
    for (const { user, headers } of [ada, bob]) {
      expect((await ctx.services.store.users.findById(user.id))?.lockedByAdmin).toBe(true);
      expect((await ctx.app.inject({ url: '/me', headers })).statusCode).toBe(401);
    }
    expect((await viaFetch('POST', `/admin/users/${ada.user.id}/unlock`, admin.headers)).status).toBe(204);
    expect((await viaFastify('POST', `/admin/users/${bob.user.id}/unlock`, admin.headers)).status).toBe(204);
    for (const { user } of [ada, bob]) expect((await ctx.services.store.users.findById(user.id))?.lockedByAdmin).toBe(false);
    expect(await onBoth('POST', '/admin/users/999999/lock', admin.headers)).toMatchObject({ status: 404, body: { code: 'GH_NOT_FOUND' } });
    // The last usable Admin stays: 409 on both.
    expect(await onBoth('POST', `/admin/users/${admin.user.id}/lock`, admin.headers)).toMatchObject({ status: 409 });
  });

  it('deletes a user with 204, and a deleted one is 404, as Fastify does', async () => {
    const admin = await caller(['Admin']);
    const { user: ada } = await ctx.createUser();
    const { user: bob } = await ctx.createUser();
    expect(await viaFetch('DELETE', `/admin/users/${ada.id}`, admin.headers)).toEqual({ status: 204, contentType: null, body: null });
    expect((await viaFastify('DELETE', `/admin/users/${bob.id}`, admin.headers)).status).toBe(204);
    expect(await ctx.services.store.users.findById(ada.id)).toBeNull();
    expect(await ctx.services.store.users.findById(bob.id)).toBeNull();
    expect(await onBoth('DELETE', `/admin/users/${ada.id}`, admin.headers)).toMatchObject({ status: 404, body: { code: 'GH_NOT_FOUND' } });
    expect(await onBoth('DELETE', '/admin/users/abc', admin.headers)).toMatchObject({ status: 400, body: { code: 'GH_VALIDATION_FAILED' } });
  });

  it('pages the audit trail as Fastify does, and answers a bad limit 400 on both hosts', async () => {
    const admin = await caller(['Admin']);
    const { user } = await ctx.createUser();
    for (const role of ['Editor', 'Auditor', 'Reviewer']) await ctx.app.gatehouse.users.addRole(user.id, role, { by: admin.user.id, ip: IP });
    const first = await onBoth('GET', '/admin/audit?limit=2', admin.headers);
    const page = first.body as { events: { id: number; at: string; type: string }[]; next: number | null };
    expect(first.status).toBe(200);
    expect(page.events).toHaveLength(2);
    expect(page.events[0]!.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/);
    expect(page.next).toBe(page.events[1]!.id);
    const second = await onBoth('GET', `/admin/audit?limit=2&before=${page.next}`, admin.headers);
    const secondPage = second.body as { events: { id: number }[] };
    expect(secondPage.events.every((event) => event.id < page.next!)).toBe(true);
    for (const query of ['limit=0', 'limit=abc', 'limit=201', 'before=-1', 'other=1']) {
      const refused = await onBoth('GET', `/admin/audit?${query}`, admin.headers);
      expect(refused, query).toMatchObject({ status: 400, contentType: 'application/problem+json; charset=utf-8', body: { code: 'GH_VALIDATION_FAILED' } });
    }
    expect((await viaFetch('GET', '/admin/audit?limit=201', admin.headers)).body).toMatchObject({ errors: { limit: ['The limit is at most 200.'] } });
  });

  it("lists a user's sessions as Fastify does, and ends them all with 204, audited with the admin", async () => {
    const admin = await caller(['Admin']);
    const { user, password } = await ctx.createUser();
    for (let i = 0; i < 2; i++) {
      const signedIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
      expect(signedIn.statusCode).toBe(200);
    }
    const listed = await onBoth('GET', `/admin/users/${user.id}/sessions`, admin.headers);
    expect(listed.status).toBe(200);
    const sessions = listed.body as { kind: string; current: boolean; createdAt: string }[];
    expect(sessions.map((session) => session.kind)).toEqual(['token', 'token']);
    expect(sessions.some((session) => session.current)).toBe(false);
    expect(sessions[0]!.createdAt).toMatch(/Z$/);

    expect(await viaFetch('DELETE', `/admin/users/${user.id}/sessions`, admin.headers)).toEqual({ status: 204, contentType: null, body: null });
    expect((await onBoth('GET', `/admin/users/${user.id}/sessions`, admin.headers)).body).toEqual([]);
    const [event] = await ctx.services.store.audit.list({ limit: 1 });
    expect(event).toMatchObject({ type: 'sessions.revoked', userId: user.id, ip: IP, detail: { count: 2, by: admin.user.id } });
    expect((await viaFastify('DELETE', `/admin/users/${user.id}/sessions`, admin.headers)).status).toBe(204);
    expect(await onBoth('GET', '/admin/users/999999/sessions', admin.headers)).toMatchObject({ status: 404 });
    expect(json(await ctx.app.inject({ url: `/admin/users/${user.id}/sessions`, headers: admin.headers }))).toEqual([]);
  });
});
