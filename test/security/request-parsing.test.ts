/**
 * SEC-119..SEC-122 (and docs/reference/http.md) — request parsing under hostile input, for a caller who
 * IS allowed in (so the body is actually parsed). Pins that:
 *   - malformed JSON → 400 problem+json with `errors.body`;
 *   - `{"__proto__":{…}}` and `{"constructor":{"prototype":{…}}}` → 400, and neither this nor a
 *     `?__proto__[…]` query pollutes `Object.prototype` (`({}).isAdmin` stays undefined) (SEC-121);
 *   - deeply nested JSON (10,000 levels of objects, 100,000 of arrays), wherever it sits in the
 *     body, including inside a free-form `settings` object that is stored → 400 or 413, never 500,
 *     and the service stays healthy (SEC-119);
 *   - a JSON endpoint refuses other media types (text/plain, form, none, a non-UTF-8 charset)
 *     with 415 (SEC-120);
 *   - wrong types (objects, arrays, booleans, numbers where strings are expected, NoSQL-style
 *     operators) → 400 naming the field, never a sign-in (SEC-122);
 *   - an unknown route → 404 problem+json;
 *   - every error response is `application/problem+json` with `{type, title, status}` and a
 *     status that matches the HTTP status, and no stack trace.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

type Errors = { errors: Record<string, string[]> };

function expectProblem(response: LightMyRequestResponse, status: number, label?: string): void {
  expect(response.statusCode, label).toBe(status);
  expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
  const body = json(response);
  expect(body, label).toMatchObject({ type: expect.any(String), title: expect.any(String), status });
  expect(response.body, label).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

const deepObject = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe.each(engines)('request parsing on $engine (SEC-119..122)', (engine) => {
  const ctx = useTestApp(engine);

  async function signedIn(roles: string[] = []) {
    const { user, password } = await ctx.createUser({ roles });
    return { user, password, headers: bearer(await ctx.tokenFor(user)) };
  }

  function postJson(url: string, headers: Record<string, string>, payload: string, method: 'POST' | 'PUT' = 'POST') {
    return ctx.app.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload });
  }

  it('answers malformed JSON with 400 problem+json naming errors.body', async () => {
    const { headers } = await signedIn();
    for (const payload of ['{"title": "a", "body": ', '{title: "a"}', "{'title':'a'}", '{"title":"a",}', 'undefined', '{"title":"a"}{"body":"b"}', '\u0000']) {
      const response = await postJson('/documents', headers, payload);
      expectProblem(response, 400, payload);
      expect(json<Errors>(response).errors, payload).toHaveProperty('body');
    }
    // The same on the anonymous sign-in endpoint.
    const signIn = await postJson('/auth/token', {}, '{"email": ');
    expectProblem(signIn, 400);
    expect(json<Errors>(signIn).errors).toHaveProperty('body');
  });

  it('refuses __proto__ and constructor.prototype bodies with 400, and pollutes nothing (SEC-121)', async () => {
    const { headers, user } = await signedIn();
    const payloads = [
      '{"__proto__":{"isAdmin":true}}',
      '{"title":"a","body":"b","__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"isAdmin":true}}}',
      '{"title":"a","body":"b","constructor":{"prototype":{"isAdmin":true}}}',
      '{"title":"a","body":"b","nested":{"__proto__":{"isAdmin":true}}}',
      '{"\\u005f_proto__":{"isAdmin":true},"title":"a","body":"b"}',
    ];
    for (const payload of payloads) {
      const response = await postJson('/documents', headers, payload);
      expectProblem(response, 400, payload);
      const signIn = await postJson('/auth/token', {}, payload.replace('{', `{"email":"${user.email}","password":"x",`));
      expectProblem(signIn, 400, `sign-in ${payload}`);
    }
    for (const query of ['__proto__[isAdmin]=true', '__proto__.isAdmin=true', 'constructor[prototype][isAdmin]=true', 'role[]=admin']) {
      const response = await ctx.app.inject({ url: `/me?${query}`, headers });
      expect(response.statusCode, query).toBe(200);
    }
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('isAdmin');
    // A later request is unaffected too.
    expect((await ctx.app.inject({ url: '/content/premium', headers })).statusCode).toBe(403);
    expect(await ctx.data.documents.find(1)).toBeNull();
  });

  it('answers deeply nested JSON with 400 or 413, never 500, on every body-taking route (SEC-119)', async () => {
    const { headers, user } = await signedIn(['SuperAdmin']);
    const organization = await ctx.app.gatehouse.organizations.createOwnedBy(user.id, { name: 'Deep' }, { by: 'application' });
    const document = await postJson('/documents', headers, '{"title":"t","body":"b"}');
    const documentId = json(document).id as number;
    const bodies: [string, string][] = [
      ['10,000 nested objects', deepObject(10_000)],
      ['100,000 nested arrays', deepArray(100_000)],
      ['nested inside a field', `{"title":${deepObject(10_000, '"x"')},"body":"b"}`],
    ];
    const targets: [string, 'POST' | 'PUT', (body: string) => string][] = [
      ['/documents', 'POST', (body) => body],
      [`/documents/${documentId}`, 'PUT', (body) => body],
      ['/orgs', 'POST', (body) => body],
      ['/auth/token', 'POST', (body) => body],
    ];
    for (const [url, method, wrap] of targets) {
      for (const [label, body] of bodies) {
        const response = await postJson(url, url === '/auth/token' ? {} : headers, wrap(body), method);
        expect([400, 413], `${method} ${url}: ${label} → ${response.statusCode}`).toContain(response.statusCode);
        expectProblem(response, response.statusCode, `${method} ${url}: ${label}`);
      }
    }
    expect((await ctx.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect(await ctx.data.organizationSettings.settingsOf(organization.id)).toEqual({});
  });

  it('answers deeply nested free-form settings with 400 or 413, never 500, and stores nothing (SEC-119)', async () => {
    // `settings` is the one body member that accepts any object, and it is serialised to the store.
    const { headers, user } = await signedIn(['SuperAdmin']);
    const organization = await ctx.app.gatehouse.organizations.createOwnedBy(user.id, { name: 'Deep' }, { by: 'application' });
    for (const depth of [5_000, 10_000]) {
      const response = await postJson(`/orgs/${organization.id}/settings`, headers, `{"settings":${deepObject(depth)}}`, 'PUT');
      expect([400, 413], `settings nested ${depth} levels → ${response.statusCode}`).toContain(response.statusCode);
      expectProblem(response, response.statusCode, `settings nested ${depth} levels`);
    }
    expect(await ctx.data.organizationSettings.settingsOf(organization.id)).toEqual({});
    // A normal settings object still works.
    const ok = await postJson(`/orgs/${organization.id}/settings`, headers, '{"settings":{"theme":"dark"}}', 'PUT');
    expect(ok.statusCode).toBe(200);
  });

  async function postDocument(headers: Record<string, string>, contentType: Record<string, string>, payload: string) {
    return ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...headers, ...contentType }, payload });
  }

  it('refuses form, multipart, XML and a missing content type on a JSON endpoint with 415 (SEC-120)', async () => {
    const { headers } = await signedIn();
    const cases: [string, Record<string, string>, string][] = [
      ['form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, 'title=a&body=b'],
      ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\na\r\n--x--'],
      ['no content-type', {}, '{"title":"a","body":"b"}'],
      ['application/xml', { 'content-type': 'application/xml' }, '<title>a</title>'],
    ];
    for (const [label, contentType, payload] of cases) expectProblem(await postDocument(headers, contentType, payload), 415, label);
    expect(await ctx.data.documents.find(1)).toBeNull();
    // application/json with and without charset=utf-8 is accepted.
    for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
      const ok = await postDocument(headers, { 'content-type': contentType }, '{"title":"a","body":"b"}');
      expect(ok.statusCode, contentType).toBe(201);
    }
  });

  it('refuses text/plain on a JSON endpoint with 415, not a 400 from parsing it as text (SEC-120)', async () => {
    const { headers } = await signedIn();
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'TEXT/PLAIN']) {
      expectProblem(await postDocument(headers, { 'content-type': contentType }, '{"title":"a","body":"b"}'), 415, contentType);
    }
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'content-type': 'text/plain' }, payload: '{"email":"a@b.io","password":"x"}' });
    expectProblem(signIn, 415, 'sign-in');
    expect(await ctx.data.documents.find(1)).toBeNull();
  });

  it('refuses a JSON body declared in a charset other than UTF-8 with 415 (SEC-120, RFC 8259 §8.1)', async () => {
    const { headers } = await signedIn();
    for (const charset of ['utf-16', 'utf-16le', 'iso-8859-1']) {
      const contentType = `application/json; charset=${charset}`;
      expectProblem(await postDocument(headers, { 'content-type': contentType }, '{"title":"a","body":"b"}'), 415, contentType);
    }
    expect(await ctx.data.documents.find(1)).toBeNull();
  });

  it('answers wrong types with 400 naming the field, and never signs in with them (SEC-122)', async () => {
    const { headers, user, password } = await signedIn();
    const documentCases: [unknown, string][] = [
      [{ title: 5, body: 'b' }, 'title'],
      [{ title: ['a'], body: 'b' }, 'title'],
      [{ title: { $ne: null }, body: 'b' }, 'title'],
      [{ title: 'a', body: true }, 'body'],
      [{ title: 'a', body: null }, 'body'],
      [{ title: 'a' }, 'body'],
      [{ title: 'a', body: 'b', ownerId: 1 }, 'ownerId'],
      [{ title: 'a', body: 'b', id: 7 }, 'id'],
    ];
    for (const [payload, field] of documentCases) {
      const response = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: payload as object });
      expectProblem(response, 400, JSON.stringify(payload));
      expect(json<Errors>(response).errors, JSON.stringify(payload)).toHaveProperty(field);
    }
    for (const payload of ['[]', '"text"', '42', 'null', 'true']) {
      const response = await postJson('/documents', headers, payload);
      expectProblem(response, 400, payload);
      expect(json<Errors>(response).errors, payload).toBeTypeOf('object');
    }
    const signInCases: [unknown, string][] = [
      [{ email: user.email, password: { $gt: '' } }, 'password'],
      [{ email: user.email, password: true }, 'password'],
      [{ email: user.email, password: [password] }, 'password'],
      [{ email: [user.email, 'c@d.io'], password }, 'email'],
      [{ email: { $regex: '.*' }, password }, 'email'],
      [{ email: user.email, password, setCookie: 'yes' }, 'setCookie'],
      [{ email: user.email, password, role: 'Admin' }, 'role'],
    ];
    for (const [payload, field] of signInCases) {
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: payload as object });
      expectProblem(response, 400, JSON.stringify(payload));
      expect(json<Errors>(response).errors, JSON.stringify(payload)).toHaveProperty(field);
      expect(response.body).not.toContain('accessToken');
    }
    // Non-integer ids in the path.
    for (const id of ['abc', '1.5', '-1', '0', '1e3', '0x10', '1 OR 1=1', '%00']) {
      const response = await ctx.app.inject({ url: `/documents/${encodeURIComponent(id)}`, headers });
      expectProblem(response, 400, id);
      expect(json<Errors>(response).errors, id).toHaveProperty('id');
    }
  });

  it('answers an unknown route with 404 problem+json, anonymously and signed in', async () => {
    const { headers } = await signedIn();
    // (`/admin` itself is the admin console: 401 anonymously, 403 to a user without Admin.)
    for (const url of ['/nope', '/admin/nothing-here', '/documents/1/extra', '/.env', '/../etc/passwd']) {
      for (const auth of [{}, headers]) {
        const response = await ctx.app.inject({ url, headers: auth });
        expectProblem(response, 404, url);
      }
    }
    expectProblem(await ctx.app.inject({ method: 'DELETE', url: '/me', headers }), 404, 'DELETE /me');
    expectProblem(await ctx.app.inject({ method: 'PATCH', url: '/documents/1', headers }), 404, 'PATCH /documents/1');
  });

  it('answers every kind of error as problem+json with {type, title, status}', async () => {
    const key = await ctx.apiKey('errors-client');
    const { headers } = await signedIn();
    const responses: [string, LightMyRequestResponse, number][] = [
      ['401 anonymous', await ctx.app.inject({ url: '/me' }), 401],
      ['401 bad token', await ctx.app.inject({ url: '/me', headers: bearer('a.b.c') }), 401],
      ['401 bad API key', await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': 'x' } }), 401],
      ['401 sign-in', await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: 'nobody@example.com', password: 'x' } }), 401],
      ['403', await ctx.app.inject({ url: '/content/premium', headers }), 403],
      ['403 API key', await ctx.app.inject({ method: 'POST', url: '/documents', headers: { 'x-api-key': key }, payload: {} }), 403],
      ['400', await postJson('/documents', headers, '{'), 400],
      ['404 route', await ctx.app.inject({ url: '/nope' }), 404],
      ['404 document', await ctx.app.inject({ url: '/documents/999', headers }), 404],
      ['413', await postJson('/documents', headers, JSON.stringify({ title: 'a', body: 'x'.repeat(1_100_000) })), 413],
      ['415', await ctx.app.inject({ method: 'POST', url: '/documents', headers: { ...headers, 'content-type': 'application/xml' }, payload: '<a/>' }), 415],
    ];
    for (const [label, response, status] of responses) expectProblem(response, status, label);
  });
});
