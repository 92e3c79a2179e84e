/**
 * Registration, e-mail confirmation and password reset through the Web-standard handler
 * (`fetchHandler`), over the services of a real instance on SQLite, and the same requests through
 * the Fastify app: JSON (register 202, confirm, a reset with a wrong code 400), the pages (with
 * their Content-Security-Policy and antiforgery cookie), form posts with their antiforgery token
 * (303) and without it (400 naming the field), a form whose body is not valid (its page again at
 * 400), and the per-address limit.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ANTIFORGERY_FIELD } from '../../src/security/crypto/antiforgery.ts';
import { type FetchHandler, fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { registrationEndpoints } from '../../src/endpoints/registration/registration-endpoints.ts';
import { MembershipPaths } from '../../src/endpoints/membership-paths.ts';
import { testEngines } from '../helpers/databases.ts';
import { readOutbox } from '../helpers/smtp.ts';
import { type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const ORIGIN = 'http://gh.test';
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PROBLEM = 'application/problem+json; charset=utf-8';

/** The handler of the registration endpoints over the instance's services, as its Fastify routes are built. */
function handlerOf(ctx: TestApp): FetchHandler {
  const { services } = ctx;
  const { evaluator, policies, config } = ctx.app.gatehouse;
  const paths = MembershipPaths.ROOT;
  const endpoints = registrationEndpoints({
    config,
    pages: ctx.app.pages,
    paths,
    links: paths.accountLinks(config.publicUrl),
    registration: services.registration,
    passwordReset: services.passwordReset,
  });
  return fetchHandler(endpoints, {
    evaluator,
    policies,
    limits: { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns },
    trustedOrigins: [config.publicUrl.origin],
    antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
  });
}

function postJson(path: string, body: unknown): Request {
  return new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

function postForm(path: string, fields: Record<string, string>, cookie = ''): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: HTML, ...(cookie === '' ? {} : { cookie }) },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Status, content type and the body (JSON, the problem's code and errors, or whether it is the page of a form). */
async function shapeOfFetch(response: Response) {
  return { status: response.status, contentType: response.headers.get('content-type'), location: response.headers.get('location'), body: shapeOf(await response.text()) };
}

function shapeOfInject(response: LightMyRequestResponse) {
  return { status: response.statusCode, contentType: response.headers['content-type'] ?? null, location: response.headers.location ?? null, body: shapeOf(response.body) };
}

function shapeOf(text: string): unknown {
  if (text === '') return null;
  if (text.startsWith('<!')) return { page: /<form method="post"/.test(text) ? 'with a form' : 'without a form', errors: /role="alert"|class="error"/.test(text) };
  const body = JSON.parse(text) as Record<string, unknown>;
  return typeof body.code === 'string' ? { code: body.code, errors: body.errors } : body;
}

/** The page's antiforgery cookie (as a Cookie header) and the hidden field of its form. */
async function antiforgeryOf(page: Response): Promise<{ cookie: string; token: string }> {
  const cookie = page.headers.getSetCookie().find((line) => line.startsWith('gh.af='))!.split(';')[0]!;
  const token = new RegExp(`name="${ANTIFORGERY_FIELD}" value="([^"]+)"`).exec(await page.text())![1]!;
  return { cookie, token };
}

let addresses = 0;
const newAddress = () => `registrant${++addresses}-${process.pid}@example.com`;
const PASSWORD = 'a long and uncommon passphrase';

/** The link of the newest mail to `email` whose text holds `path`. */
async function mailedLink(ctx: TestApp, email: string, path: string): Promise<URL> {
  let link: URL | undefined;
  await expect
    .poll(async () => {
      const text = (await readOutbox(ctx, email)).find((mail) => mail.text.includes(path))?.text;
      link = text === undefined ? undefined : new URL(/https?:\/\/\S+/.exec(text)![0]);
      return link;
    })
    .toBeDefined();
  return link!;
}

describe('registration through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' } });

  it('registers from JSON with 202, as Fastify does, and the mailed link confirms the address', async () => {
    const handle = handlerOf(ctx);
    const email = newAddress();
    const fetched = await shapeOfFetch(await handle(postJson('/account/register', { email, password: PASSWORD }), { ip: '192.0.2.1' }));
    const injected = shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email: newAddress(), password: PASSWORD } }));
    expect(fetched).toEqual({ status: 202, contentType: 'application/json; charset=utf-8', location: null, body: { status: 'confirmation-sent' } });
    expect(fetched).toEqual(injected);

    const link = await mailedLink(ctx, email, '/account/confirm-email');
    const confirmed = await handle(new Request(`${ORIGIN}${link.pathname}${link.search}`));
    expect(await shapeOfFetch(confirmed)).toMatchObject({ status: 200, body: { confirmed: true } });
    expect((await ctx.services.users.findByEmail(email))?.emailConfirmed).toBe(true);
  });

  it('answers a confirmation link that is wrong 400, in JSON and as the page, as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const wrong = '/account/confirm-email?userId=1&code=wrong';
    const json = await shapeOfFetch(await handle(new Request(`${ORIGIN}${wrong}`)));
    expect(json).toMatchObject({ status: 400, contentType: PROBLEM, body: { code: 'GH_VALIDATION_FAILED', errors: { code: [expect.any(String)] } } });
    expect(json).toEqual(shapeOfInject(await ctx.app.inject({ url: wrong })));
    const page = await handle(new Request(`${ORIGIN}${wrong}`, { headers: { accept: HTML } }));
    const injectedPage = await ctx.app.inject({ url: wrong, headers: { accept: HTML } });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-security-policy')).toBe(injectedPage.headers['content-security-policy']);
    expect(await shapeOfFetch(page)).toEqual(shapeOfInject(injectedPage));
  });

  it('serves the register page with its security headers and antiforgery cookie, and its rules as JSON', async () => {
    const handle = handlerOf(ctx);
    const page = await handle(new Request(`${ORIGIN}/account/register`, { headers: { accept: HTML } }));
    const injected = await ctx.app.inject({ url: '/account/register', headers: { accept: HTML } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none';/);
    for (const header of ['content-security-policy', 'x-frame-options', 'x-content-type-options']) expect(page.headers.get(header), header).toBe(injected.headers[header]);
    expect(page.headers.getSetCookie()).toEqual([expect.stringMatching(/^gh\.af=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/)]);
    expect((await antiforgeryOf(page)).token).not.toBe('');

    const rules = await handle(new Request(`${ORIGIN}/account/register`));
    expect(await shapeOfFetch(rules)).toEqual(shapeOfInject(await ctx.app.inject({ url: '/account/register' })));
    const sent = await handle(new Request(`${ORIGIN}/account/register?status=sent`, { headers: { accept: HTML } }));
    expect(await shapeOfFetch(sent)).toMatchObject({ status: 200, body: { page: 'without a form' } });
  });

  it('takes the register form with its antiforgery token (303), refuses it without (400 naming the field), as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const { cookie, token } = await antiforgeryOf(await handle(new Request(`${ORIGIN}/account/register`, { headers: { accept: HTML } })));
    const posted = await handle(postForm('/account/register', { email: newAddress(), password: PASSWORD, [ANTIFORGERY_FIELD]: token }, cookie));
    expect(await shapeOfFetch(posted)).toEqual({ status: 303, contentType: null, location: '/account/register?status=sent', body: null });

    const fields = { email: newAddress(), password: PASSWORD };
    const refused = await shapeOfFetch(await handle(postForm('/account/register', fields, cookie)));
    expect(refused).toMatchObject({ status: 400, contentType: PROBLEM, body: { code: 'GH_VALIDATION_FAILED', errors: { [ANTIFORGERY_FIELD]: [expect.any(String)] } } });
    const injected = await ctx.app.inject({
      method: 'POST',
      url: '/account/register',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: HTML, cookie },
      payload: new URLSearchParams(fields).toString(),
    });
    expect(refused).toEqual(shapeOfInject(injected));
  });

  it('answers a register form whose body is not valid with the page again at 400, as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const page = await handle(new Request(`${ORIGIN}/account/register`, { headers: { accept: HTML } }));
    const { cookie, token } = await antiforgeryOf(page);
    const fields = { email: newAddress(), [ANTIFORGERY_FIELD]: token };
    const refused = await handle(postForm('/account/register', fields, cookie));
    expect(refused.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'));
    const text = await refused.text();
    expect(refused.status).toBe(400);
    expect(text).toContain(`value="${fields.email}"`);
    const injected = await ctx.app.inject({
      method: 'POST',
      url: '/account/register',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: HTML, cookie },
      payload: new URLSearchParams(fields).toString(),
    });
    expect({ status: refused.status, body: shapeOf(text) }).toEqual({ status: injected.statusCode, body: shapeOf(injected.body) });
    expect(shapeOf(text)).toEqual({ page: 'with a form', errors: true });
  });

  it('resets a password from the mailed code (204), and refuses a wrong code 400 in JSON and as the form, as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const { user } = await ctx.createUser();
    const forgot = await handle(postJson('/account/forgot-password', { email: user.email }));
    expect(await shapeOfFetch(forgot)).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: newAddress() } })));
    expect(forgot.status).toBe(202);

    const wrong = { email: user.email, code: 'wrong', newPassword: 'the owner takes it back 9' };
    const json = await shapeOfFetch(await handle(postJson('/account/reset-password', wrong)));
    expect(json).toMatchObject({ status: 400, contentType: PROBLEM, body: { code: 'GH_VALIDATION_FAILED', errors: { code: [expect.any(String)] } } });
    expect(json).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/reset-password', payload: wrong })));

    const link = await mailedLink(ctx, user.email, '/account/reset-password');
    const resetPage = await handle(new Request(`${ORIGIN}${link.pathname}${link.search}`, { headers: { accept: HTML } }));
    const { cookie, token } = await antiforgeryOf(resetPage);
    const wrongForm = await handle(postForm('/account/reset-password', { ...wrong, [ANTIFORGERY_FIELD]: token }, cookie));
    expect(await shapeOfFetch(wrongForm)).toMatchObject({ status: 400, contentType: 'text/html; charset=utf-8', body: { page: 'with a form', errors: true } });

    const code = link.searchParams.get('code')!;
    const reset = await handle(postJson('/account/reset-password', { ...wrong, code }), { ip: '192.0.2.9' });
    expect(reset.status).toBe(204);
    const signIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password: wrong.newPassword } });
    expect(signIn.statusCode).toBe(200);
  });

  it('sends a confirmation mail again from JSON (202) and from the form (303), as Fastify does', async () => {
    const handle = handlerOf(ctx);
    const email = newAddress();
    const json = await shapeOfFetch(await handle(postJson('/account/resend-confirmation', { email })));
    expect(json).toEqual({ status: 202, contentType: 'application/json; charset=utf-8', location: null, body: { status: 'confirmation-sent' } });
    expect(json).toEqual(shapeOfInject(await ctx.app.inject({ method: 'POST', url: '/account/resend-confirmation', payload: { email } })));
    const page = await handle(new Request(`${ORIGIN}/account/resend-confirmation`, { headers: { accept: HTML } }));
    const { cookie, token } = await antiforgeryOf(page);
    const posted = await handle(postForm('/account/resend-confirmation', { email, [ANTIFORGERY_FIELD]: token }, cookie));
    expect(await shapeOfFetch(posted)).toMatchObject({ status: 303, location: '/account/resend-confirmation?status=sent' });
  });
});

describe('the registration limits through fetchHandler', () => {
  const ctx = useTestApp(sqlite!, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '2' } });

  it('counts the posts that name an address per address and client: the third is 429 with Retry-After', async () => {
    const handle = handlerOf(ctx);
    const email = newAddress();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await handle(postJson('/account/forgot-password', { email }), { ip: '198.51.100.7' })).status);
    expect(statuses).toEqual([202, 202, 429]);
    const refused = await handle(postJson('/account/register', { email, password: PASSWORD }), { ip: '198.51.100.7' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    // Another address of the same client has a budget of its own.
    expect((await handle(postJson('/account/forgot-password', { email: newAddress() }), { ip: '198.51.100.7' })).status).toBe(202);
  });
});
