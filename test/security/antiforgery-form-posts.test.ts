/**
 * Cross-site form posts (docs/reference/http.md): a page on another site can make a browser post a form
 * (url-encoded or multipart, no preflight) with the user's cookies. Every such post must carry
 * `__RequestVerificationToken` derived from the antiforgery cookie; missing or wrong → 400
 * problem+json naming the field, and the endpoint never runs. JSON bodies are exempt, and routes
 * that take no forms keep answering them with 415 (SEC-120).
 *
 * The plugins are exercised on a small app of their own: a form route with a closed schema, as
 * the account pages have, and a JSON route.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antiforgeryCookieName, antiforgeryPhase } from '../../src/http/antiforgery.ts';
import { requestPipelinePlugin } from '../../src/http/request-pipeline.ts';
import { formBodiesPlugin } from '../../src/http/plugins/form-bodies.ts';
import { jsonBodyPlugin } from '../../src/http/plugins/json-body.ts';
import { problemErrorsPlugin } from '../../src/http/plugins/problem-errors.ts';
import { Antiforgery } from '../../src/security/crypto/antiforgery.ts';

const FIELD = '__RequestVerificationToken';
const secret = randomBytes(32).toString('base64url');
const credentialsSchema = {
  body: {
    type: 'object',
    additionalProperties: false,
    required: ['email'],
    properties: { email: { type: 'string' }, password: { type: 'string' } },
  },
};

let app: FastifyInstance;
const received: unknown[] = [];

beforeAll(async () => {
  app = Fastify({ bodyLimit: 1_048_576 });
  await app.register(problemErrorsPlugin);
  await app.register(jsonBodyPlugin);
  await app.register(requestPipelinePlugin, {
    phases: [{ phase: 'antiforgery', hook: 'preValidation', by: antiforgeryPhase({ secret, production: false }) }],
  });
  await app.register(async (forms) => {
    await forms.register(formBodiesPlugin);
    forms.get('/form', async (request, reply) => ({ token: app.antiforgeryToken(request, reply) }));
    forms.post('/form', { schema: credentialsSchema }, async (request) => {
      received.push(request.body);
      return { ok: true };
    });
  });
  app.post('/json-only', { schema: credentialsSchema }, async () => ({ ok: true }));
  await app.ready();
});
afterAll(() => app.close());

function tokens() {
  const antiforgery = new Antiforgery(secret);
  const cookieToken = antiforgery.newCookieToken();
  return { cookie: `${antiforgeryCookieName(false)}=${cookieToken}`, field: antiforgery.requestToken(cookieToken, null) };
}

function formPost(fields: Record<string, string>, cookie?: string, url = '/form') {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    payload: new URLSearchParams(fields).toString(),
  });
}

function multipart(fields: Record<string, string>, file?: string) {
  const boundary = '----gatehouse-test-boundary';
  let body = '';
  for (const [name, value] of Object.entries(fields)) body += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  if (file !== undefined) body += `--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${file}\r\n`;
  return { body: `${body}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

function multipartPost(form: { body: string; contentType: string }, cookie?: string) {
  return app.inject({ method: 'POST', url: '/form', headers: { 'content-type': form.contentType, ...(cookie ? { cookie } : {}) }, payload: form.body });
}

function expectRefused(response: LightMyRequestResponse, label: string) {
  expect(response.statusCode, label).toBe(400);
  expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
  expect(JSON.parse(response.body).errors, label).toHaveProperty(FIELD);
}

describe('antiforgery on form posts', () => {
  it('refuses a form post without the token, with a wrong one, or without the cookie, before the endpoint runs', async () => {
    received.length = 0;
    const { cookie, field } = tokens();
    const other = tokens();
    expectRefused(await formPost({ email: 'a@example.com' }, cookie), 'no field');
    expectRefused(await formPost({ email: 'a@example.com', [FIELD]: other.field }, cookie), 'field of another cookie');
    expectRefused(await formPost({ email: 'a@example.com', [FIELD]: field }), 'no cookie');
    expectRefused(await formPost({ email: 'a@example.com', [FIELD]: field }, `${antiforgeryCookieName(false)}=forged`), 'forged cookie');
    expectRefused(await formPost({ email: 'a@example.com', [FIELD]: field }, `${antiforgeryCookieName(true)}=${cookie.split('=')[1]}`), 'production name in development');
    expect(received).toEqual([]);
  });

  it('lets a post with the matching token through, without the field, to a closed schema', async () => {
    received.length = 0;
    const { cookie, field } = tokens();
    const response = await formPost({ email: 'a@example.com', password: 'p', [FIELD]: field }, cookie);
    expect(response.statusCode).toBe(200);
    expect(received).toEqual([{ email: 'a@example.com', password: 'p' }]);
  });

  it('gives a page a token and sets the cookie it belongs to, once', async () => {
    const page = await app.inject({ url: '/form' });
    const setCookie = String(page.headers['set-cookie']);
    expect(setCookie).toMatch(/^gh\.af=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const cookie = setCookie.split(';')[0]!;
    const { token } = JSON.parse(page.body) as { token: string };
    expect((await formPost({ email: 'a@example.com', [FIELD]: token }, cookie)).statusCode).toBe(200);
    // A browser that has the cookie keeps it: no new cookie, and the new token works with it.
    const again = await app.inject({ url: '/form', headers: { cookie } });
    expect(again.headers['set-cookie']).toBeUndefined();
    const second = (JSON.parse(again.body) as { token: string }).token;
    expect((await formPost({ email: 'a@example.com', [FIELD]: second }, cookie)).statusCode).toBe(200);
  });

  it('exempts JSON bodies', async () => {
    const response = await app.inject({ method: 'POST', url: '/form', payload: { email: 'a@example.com' } });
    expect(response.statusCode).toBe(200);
  });

  it('reads multipart forms: refused without the token, accepted with it, a file part refused', async () => {
    const { cookie, field } = tokens();
    expectRefused(await multipartPost(multipart({ email: 'a@example.com' }), cookie), 'multipart without the field');
    expect((await multipartPost(multipart({ email: 'a@example.com', [FIELD]: field }), cookie)).statusCode).toBe(200);
    const withFile = await multipartPost(multipart({ email: 'a@example.com', [FIELD]: field }, 'hello'), cookie);
    expect(withFile.statusCode).toBe(400);
    expect(JSON.parse(withFile.body).errors).toHaveProperty('body');
  });

  it('answers 413 for a multipart body above the limit and 400 for a malformed one', async () => {
    const { cookie } = tokens();
    expect((await multipartPost(multipart({ pad: 'x'.repeat(1_100_000) }), cookie)).statusCode).toBe(413);
    const malformed = await app.inject({ method: 'POST', url: '/form', headers: { 'content-type': 'multipart/form-data', cookie }, payload: 'garbage' });
    expect(malformed.statusCode).toBe(400);
  });

  it('leaves routes that take no forms answering them with 415 (SEC-120)', async () => {
    const { cookie, field } = tokens();
    expect((await formPost({ email: 'a@example.com', [FIELD]: field }, cookie, '/json-only')).statusCode).toBe(415);
    const form = multipart({ email: 'a@example.com', [FIELD]: field });
    const response = await app.inject({ method: 'POST', url: '/json-only', headers: { 'content-type': form.contentType, cookie }, payload: form.body });
    expect(response.statusCode).toBe(415);
  });
});
