/**
 * A POST without a body is accepted where the endpoint takes none, however the client labels the
 * nothing it sends: no Content-Type at all (`fetch(url, { method: 'POST' })`), `text/plain`
 * (`fetch` with `body: ''`), `application/json` with no content. A body the endpoint cannot read
 * is still 415 (SEC-120), and an empty form still needs its antiforgery token. Over real HTTP, as
 * clients send them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** The ways a client posts nothing. */
const NOTHING: [string, RequestInit][] = [
  ['no body, no Content-Type', {}],
  ['an empty text/plain body', { body: '' }],
  ['an empty application/json body', { body: '', headers: { 'content-type': 'application/json' } }],
];

describe.runIf(sqlite)('posts without a body', () => {
  let instance: TestApp;
  let base: string;

  beforeAll(async () => {
    instance = await startTestApp(await sqlite!.createDatabaseUrl());
    base = await instance.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await instance?.close();
    await sqlite?.dropAll();
  });

  const post = (path: string, init: RequestInit, headers: Record<string, string>) =>
    fetch(`${base}${path}`, { method: 'POST', ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });

  for (const [label, init] of NOTHING) {
    it(`accepts ${label} at endpoints that take none`, async () => {
      const { user: admin } = await instance.createUser({ roles: ['Admin'] });
      const { user: target } = await instance.createUser();
      const adminToken = { authorization: `Bearer ${await instance.tokenFor(admin)}` };
      expect((await post(`/admin/users/${target.id}/lock`, init, adminToken)).status).toBe(204);
      expect((await post(`/admin/users/${target.id}/unlock`, init, adminToken)).status).toBe(204);

      const { cookie } = await signInWithCookie(instance);
      expect((await post('/account/logout', init, { cookie })).status).toBe(204);
      expect((await instance.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);

      expect((await post('/auth/revoke', init, {})).status).toBe(204);
      expect((await post('/auth/refresh', init, {})).status).toBe(401);
    });
  }

  it('still refuses a body the endpoint cannot read (415), and an empty form without its token (400)', async () => {
    const { user: admin } = await instance.createUser({ roles: ['Admin'] });
    const { user: target } = await instance.createUser();
    const adminToken = { authorization: `Bearer ${await instance.tokenFor(admin)}` };
    const text = await post(`/admin/users/${target.id}/lock`, { body: 'lock it' }, adminToken);
    expect(text.status).toBe(415);
    expect(text.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await post('/auth/refresh', { body: '{"refreshToken":"x"}', headers: { 'content-type': 'text/plain' } }, {})).status).toBe(415);

    const { cookie } = await signInWithCookie(instance);
    const emptyForm = await post('/account/logout', { body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, { cookie });
    expect(emptyForm.status).toBe(400);
    expect(await emptyForm.json()).toMatchObject({ errors: { __RequestVerificationToken: [expect.any(String)] } });
    expect((await instance.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(200);
  });
});
