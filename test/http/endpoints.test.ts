/**
 * Every endpoint over HTTP, as docs/reference/http.md states it: statuses, problem bodies,
 * WWW-Authenticate, on each store engine.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

describe.each(engines)('endpoints on $engine', (engine) => {
  const ctx = useTestApp(engine);

  describe('GET /health and the JWKS', () => {
    it('answers /health with 200 and an empty body, ignoring credentials', async () => {
      const response = await ctx.app.inject({ url: '/health', headers: bearer('garbage.token.here') });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('');
    });

    it('publishes the current public key, and no private member, at /.well-known/jwks.json', async () => {
      const response = await ctx.app.inject({ url: '/.well-known/jwks.json' });
      expect(response.statusCode).toBe(200);
      const { keys } = json<{ keys: Record<string, string>[] }>(response);
      expect(keys.map((key) => key.kid)).toEqual([ctx.services.keyRing.current.kid]);
      expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(keys[0]).not.toHaveProperty('d');
    });
  });

  describe('POST /auth/token', () => {
    it('answers an ES256 access token for the right password, by e-mail or by user name', async () => {
      const { user, password } = await ctx.createUser({ userName: 'tokenuser' });
      for (const login of [{ email: user.email }, { userName: 'TokenUser' }]) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { ...login, password } });
        expect(response.statusCode).toBe(200);
        const body = json(response);
        expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
        const me = await ctx.app.inject({ url: '/me', headers: bearer(body.accessToken as string) });
        expect(me.body).toBe('tokenuser');
      }
    });

    it('gives a wrong password, an unknown user and a locked account the same generic 401', async () => {
      const { user, password } = await ctx.createUser();
      const locked = await ctx.createUser();
      await ctx.services.users.lock(locked.user.id);
      const attempts = [
        { email: user.email, password: 'wrong password!' },
        { email: 'nobody@example.com', password },
        { email: locked.user.email, password: locked.password },
      ];
      const bodies = [];
      for (const payload of attempts) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload });
        expect(response.statusCode).toBe(401);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        bodies.push(response.body);
      }
      expect(new Set(bodies).size).toBe(1);
      expect(JSON.parse(bodies[0]!)).toMatchObject({ status: 401, succeeded: false });
      expect(JSON.parse(bodies[0]!)).not.toHaveProperty('isNotAllowed');
    });

    it('reveals isNotAllowed for an unconfirmed e-mail only with the right password', async () => {
      const { user, password } = await ctx.createUser({ emailConfirmed: false });
      const right = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
      expect(right.statusCode).toBe(401);
      expect(json(right)).toMatchObject({ succeeded: false, isNotAllowed: true });
      const wrong = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password: 'not it at all' } });
      expect(json(wrong)).not.toHaveProperty('isNotAllowed');
    });

    it('refuses a body without e-mail or user name, with wrong types, or with unknown fields (400 naming the field)', async () => {
      const cases: [unknown, string][] = [
        [{ password: 'x' }, 'email'],
        [{ email: 'a@b.io', password: { $gt: '' } }, 'password'],
        [{ email: ['a@b.io'], password: 'x' }, 'email'],
        [{ email: 'a@b.io', password: 'x', roles: ['Admin'] }, 'roles'],
      ];
      for (const [payload, field] of cases) {
        const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: payload as object });
        expect(response.statusCode).toBe(400);
        expect(json<{ errors: Record<string, string[]> }>(response).errors).toHaveProperty(field);
      }
    });
  });

  describe('GET /me', () => {
    it('answers the user name, else the e-mail, as text/plain', async () => {
      const named = await ctx.createUser({ userName: 'carol' });
      const unnamed = await ctx.createUser();
      const first = await ctx.app.inject({ url: '/me', headers: bearer(await ctx.tokenFor(named.user)) });
      expect(first.headers['content-type']).toMatch(/^text\/plain/);
      expect(first.body).toBe('carol');
      const second = await ctx.app.inject({ url: '/me', headers: bearer(await ctx.tokenFor(unnamed.user)) });
      expect(second.body).toBe(unnamed.user.email);
    });

    it('answers an API-key principal with an empty body (it has no name)', async () => {
      const response = await ctx.app.inject({ url: '/me', headers: { 'x-api-key': await ctx.apiKey() } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('');
    });

    it('challenges a caller without credentials with 401, WWW-Authenticate Bearer and a problem body', async () => {
      const response = await ctx.app.inject({ url: '/me' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(json(response)).toMatchObject({ title: 'Unauthorized', status: 401 });
    });
  });

  describe('policies', () => {
    async function statusFor(url: string, claims: { type: string; value: string }[], roles: string[] = []) {
      const { user } = await ctx.createUser({ claims, roles });
      return (await ctx.app.inject({ url, headers: bearer(await ctx.tokenFor(user)) })).statusCode;
    }

    it('guards /content/mature with MinimumAge', async () => {
      expect(await statusFor('/content/mature', [{ type: 'age', value: '18' }])).toBe(200);
      expect(await statusFor('/content/mature', [{ type: 'age', value: '17' }])).toBe(403);
      expect(await statusFor('/content/mature', [{ type: 'age', value: 'abc' }])).toBe(403);
      expect(await statusFor('/content/mature', [])).toBe(403);
      expect((await ctx.app.inject({ url: '/content/mature' })).statusCode).toBe(401);
    });

    it('guards /content/premium with PremiumOnly', async () => {
      expect(await statusFor('/content/premium', [{ type: 'subscription', value: 'premium' }])).toBe(200);
      expect(await statusFor('/content/premium', [{ type: 'subscription', value: 'basic' }])).toBe(403);
    });

    it('answers a 403 that names the scheme and no requirement', async () => {
      const { user } = await ctx.createUser();
      const response = await ctx.app.inject({ url: '/content/premium', headers: bearer(await ctx.tokenFor(user)) });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const body = json(response);
      expect(body).toMatchObject({ title: 'Forbidden', status: 403, policy: ['Bearer'] });
      expect(response.body).not.toMatch(/premium|subscription/i);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('GET /integrations/whoami (ApiKey only)', () => {
    it('answers the client of a valid key', async () => {
      const response = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': await ctx.apiKey('billing') } });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ client: 'billing' });
    });

    it('says "Missing API key" without one, even to a valid bearer token, and "Invalid API key" for a wrong one', async () => {
      const { user } = await ctx.createUser();
      for (const headers of [{}, bearer(await ctx.tokenFor(user))]) {
        const response = await ctx.app.inject({ url: '/integrations/whoami', headers });
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toBe('ApiKey');
        expect(json(response).detail).toBe('Missing API key');
      }
      const wrong = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': 'ghk_0000000000000000_' + 'a'.repeat(43) } });
      expect(wrong.statusCode).toBe(401);
      expect(json(wrong).detail).toBe('Invalid API key');
    });
  });

  describe('documents (Ownership)', () => {
    it('lets the owner create, read, replace and delete a document', async () => {
      const { user } = await ctx.createUser();
      const headers = bearer(await ctx.tokenFor(user));
      const created = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'Plan', body: 'Text' } });
      expect(created.statusCode).toBe(201);
      const document = json(created);
      expect(document).toEqual({ id: expect.any(Number), ownerId: user.id, title: 'Plan', body: 'Text' });
      const read = await ctx.app.inject({ url: `/documents/${document.id}`, headers });
      expect(json(read)).toEqual(document);
      const replaced = await ctx.app.inject({ method: 'PUT', url: `/documents/${document.id}`, headers, payload: { title: 'Plan B', body: 'More' } });
      expect(json(replaced)).toEqual({ ...document, title: 'Plan B', body: 'More' });
      const deleted = await ctx.app.inject({ method: 'DELETE', url: `/documents/${document.id}`, headers });
      expect(deleted.statusCode).toBe(204);
      expect((await ctx.app.inject({ url: `/documents/${document.id}`, headers })).statusCode).toBe(404);
    });

    it('forbids another user every operation and changes nothing', async () => {
      const owner = await ctx.createUser();
      const other = await ctx.createUser();
      const created = await ctx.app.inject({ method: 'POST', url: '/documents', headers: bearer(await ctx.tokenFor(owner.user)), payload: { title: 'Mine', body: 'Secret' } });
      const id = json(created).id;
      const headers = bearer(await ctx.tokenFor(other.user));
      for (const request of [
        { method: 'GET' as const, url: `/documents/${id}` },
        { method: 'PUT' as const, url: `/documents/${id}`, payload: { title: 'Theirs', body: 'x' } },
        { method: 'DELETE' as const, url: `/documents/${id}` },
      ]) {
        const response = await ctx.app.inject({ ...request, headers });
        expect(response.statusCode).toBe(403);
        expect(json(response).policy).toEqual(['Bearer']);
      }
      expect(await ctx.data.documents.find(id as number)).toMatchObject({ title: 'Mine', body: 'Secret' });
    });

    it('answers 404 for an unknown id and 400 for a non-integer one', async () => {
      const { user } = await ctx.createUser();
      const headers = bearer(await ctx.tokenFor(user));
      expect((await ctx.app.inject({ url: '/documents/999999', headers })).statusCode).toBe(404);
      for (const id of ['abc', '1.5', '-1', '0', '1e3', '99999999999999999999']) {
        const response = await ctx.app.inject({ url: `/documents/${id}`, headers });
        expect(response.statusCode, id).toBe(400);
        expect(json<{ errors: object }>(response).errors).toHaveProperty('id');
      }
    });

    it('refuses empty or oversized titles and bodies with 400, storing nothing', async () => {
      const { user } = await ctx.createUser();
      const headers = bearer(await ctx.tokenFor(user));
      for (const payload of [{ title: '', body: 'x' }, { title: 'x'.repeat(201), body: 'x' }, { title: 'x', body: '' }, { title: 'x', body: 'y'.repeat(10_001) }]) {
        const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload });
        expect(response.statusCode).toBe(400);
      }
      const ok = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'x'.repeat(200), body: 'y'.repeat(10_000) } });
      expect(ok.statusCode).toBe(201);
      expect(json(ok).id).toBe(1);
    });

    it('forbids an API-key caller (it acts for no user)', async () => {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers: { 'x-api-key': await ctx.apiKey() }, payload: { title: 'a', body: 'b' } });
      expect(response.statusCode).toBe(403);
      expect(json(response).policy).toEqual(['ApiKey']);
    });
  });

  describe('organizations (SuperAdmin, OrgAdmin)', () => {
    it('lets a SuperAdmin create an organization, and nobody else (self-service is off)', async () => {
      const superAdmin = await ctx.createUser({ roles: ['SuperAdmin'] });
      const orgAdmin = await ctx.createUser({ roles: ['OrgAdmin'] });
      const created = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: bearer(await ctx.tokenFor(superAdmin.user)), payload: { name: 'Acme' } });
      expect(created.statusCode).toBe(201);
      expect(json(created)).toEqual({ id: expect.any(Number), name: 'Acme', slug: 'acme' });
      const refused = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: bearer(await ctx.tokenFor(orgAdmin.user)), payload: { name: 'Evil' } });
      expect(refused.statusCode).toBe(403);
    });

    it('lets an OrgAdmin of that organization (active), and a SuperAdmin, read and write its settings', async () => {
      const { organizations } = ctx.app.gatehouse;
      const owner = await ctx.createUser();
      const organization = await organizations.createOwnedBy(owner.user.id, { name: 'Acme' }, { by: 'application' });
      const other = await organizations.createOwnedBy(owner.user.id, { name: 'Other' }, { by: 'application' });
      const admin = await ctx.createUser();
      await organizations.addMember(organization.id, admin.user.id, ['OrgAdmin'], { by: 'application' });
      await organizations.addMember(other.id, admin.user.id, ['OrgMember'], { by: 'application' });
      const superAdmin = await ctx.createUser({ roles: ['SuperAdmin'] });
      const headers = bearer(await ctx.tokenFor(admin.user, organization.id));
      const put = await ctx.app.inject({ method: 'PUT', url: `/orgs/${organization.id}/settings`, headers, payload: { settings: { theme: 'dark' } } });
      expect(put.statusCode).toBe(200);
      expect(json(put)).toEqual({ organizationId: organization.id, settings: { theme: 'dark' } });
      const read = await ctx.app.inject({ url: `/orgs/${organization.id}/settings`, headers: bearer(await ctx.tokenFor(superAdmin.user)) });
      expect(json(read)).toEqual({ organizationId: organization.id, settings: { theme: 'dark' } });
      // OrgAdmin of one organization is nothing in another, even one the user is a member of.
      expect((await ctx.app.inject({ url: `/orgs/${other.id}/settings`, headers })).statusCode).toBe(403);
      // With the other organization active, OrgAdmin of the first is not carried.
      const elsewhere = bearer(await ctx.tokenFor(admin.user, other.id));
      expect((await ctx.app.inject({ url: `/orgs/${organization.id}/settings`, headers: elsewhere })).statusCode).toBe(403);
      expect((await ctx.app.inject({ url: '/orgs/424242/settings', headers })).statusCode).toBe(404);
    });

    it('does not let a custom org_id claim with a global OrgAdmin role stand in for a membership', async () => {
      const owner = await ctx.createUser();
      const organization = await ctx.app.gatehouse.organizations.createOwnedBy(owner.user.id, { name: 'Acme' }, { by: 'application' });
      const forger = await ctx.createUser({ roles: ['OrgAdmin'], claims: [{ type: 'org_id', value: String(organization.id) }] });
      const login = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: forger.user.email, password: forger.password } });
      const headers = bearer(json(login).accessToken as string);
      expect((await ctx.app.inject({ url: `/orgs/${organization.id}/settings`, headers })).statusCode).toBe(403);
    });
  });
});

describe.each(engines)('BusinessHours on $engine', (engine) => {
  const clock = new ManualClock();
  const ctx = useTestApp(engine, { clock, env: { BUSINESS_HOURS: '09:00-17:00', TZ: 'Europe/Paris' } });

  it('opens /reports/daily from 09:00 to 17:00 Paris time, both ends allowed', async () => {
    const { user } = await ctx.createUser();
    const cases: [string, number][] = [
      ['2026-06-15T06:59:00Z', 403],
      ['2026-06-15T07:00:00Z', 200],
      ['2026-06-15T15:00:59Z', 200],
      ['2026-06-15T15:01:00Z', 403],
    ];
    for (const [instant, status] of cases) {
      clock.set(Date.parse(instant));
      const token = await ctx.tokenFor(user);
      const response = await ctx.app.inject({ url: '/reports/daily', headers: bearer(token) });
      expect(response.statusCode, instant).toBe(status);
    }
  });
});
