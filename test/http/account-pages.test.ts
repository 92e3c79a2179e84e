/**
 * The account pages an application owns (docs/pages.md): its page options reach the served pages
 * and their CSP; a browser navigating to a refused or unknown membership path gets a page while
 * API clients keep problem+json; the phone-number page and the resend-confirmation page work by
 * form posts, each with its antiforgery token, over the same logic as the JSON routes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { startSmsSink } from '../helpers/sms-sink.ts';
import { readOutbox } from '../helpers/smtp.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const [sqlite] = engines;
const PUBLIC_URL = 'http://gatehouse.test';
/** What a browser sends when the user follows a link or types the address. */
const NAVIGATION = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'sec-fetch-mode': 'navigate' };
const PROBLEM = /^application\/problem\+json/;

describe.runIf(sqlite)('refusals under the membership paths', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL } });

  it('answers a browser navigating to an unknown membership path with a 404 page, and API clients with problem+json', async () => {
    const page = await ctx.app.inject({ url: '/account/no-such-page', headers: NAVIGATION });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<h1>Page not found</h1>');
    expect(page.body).toContain('<title>Page not found · Gatehouse</title>');

    for (const headers of [{ accept: 'application/json' }, { accept: '*/*' }, { ...NAVIGATION, 'sec-fetch-mode': 'cors' }, { ...NAVIGATION, 'x-requested-with': 'XMLHttpRequest' }]) {
      const api = await ctx.app.inject({ url: '/account/no-such-page', headers });
      expect(api.statusCode).toBe(404);
      expect(api.headers['content-type']).toMatch(PROBLEM);
      expect(json(api)).toMatchObject({ code: 'GH_NOT_FOUND' });
    }
    // Outside the membership paths a browser gets the application's answer, not a membership page.
    const elsewhere = await ctx.app.inject({ url: '/no-such-thing', headers: NAVIGATION });
    expect(elsewhere.headers['content-type']).toMatch(PROBLEM);
    for (const url of ['/auth/nothing', '/admin/nothing']) {
      const browsed = await ctx.app.inject({ url, headers: NAVIGATION });
      expect([browsed.statusCode, browsed.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    }
  });

  it('answers a signed-in browser refused an admin page with a 403 page, and a bearer caller with problem+json', async () => {
    const { user, cookie } = await signInWithCookie(ctx);
    const page = await ctx.app.inject({ url: '/admin/users', headers: { ...NAVIGATION, cookie } });
    expect(page.statusCode).toBe(403);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<h1>Access denied</h1>');
    expect(page.body).toContain('href="/account/profile"');

    const api = await ctx.app.inject({ url: '/admin/users', headers: { ...bearer(await ctx.tokenFor(user)), accept: 'application/json' } });
    expect(api.statusCode).toBe(403);
    expect(api.headers['content-type']).toMatch(PROBLEM);
    expect(json(api)).toMatchObject({ code: 'GH_FORBIDDEN' });
    // Not signed in, a browser still goes to the login page.
    const anonymous = await ctx.app.inject({ url: '/admin/users', headers: NAVIGATION });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe('/account/login?ReturnUrl=%2Fadmin%2Fusers');
  });
});

describe.runIf(sqlite)('page options of the application', () => {
  const ctx = useTestApp(sqlite!, {
    env: { PUBLIC_URL },
    appOptions: {
      pages: {
        productName: 'Acme ID',
        stylesheet: 'https://static.acme.test/id.css',
        renderers: {
          error: (model, kit) => ({ title: `Error ${model.status}`, main: kit.html`<p class="acme-error">Nothing for you here. <a href="${model.links.login}">Sign in</a></p>` }),
        },
      },
    },
  });

  it('names the product, links the stylesheet and lets the CSP load it from its origin', async () => {
    const page = await ctx.app.inject({ url: '/account/login', headers: NAVIGATION });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Sign in · Acme ID</title>');
    expect(page.body).toContain('<link rel="stylesheet" href="https://static.acme.test/id.css">');
    expect(page.headers['content-security-policy']).toContain(" style-src 'self' https://static.acme.test;");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.body).not.toMatch(/<style|\sstyle=/);
  });

  it('renders the refusal pages with the replaced renderer', async () => {
    const page = await ctx.app.inject({ url: '/account/missing', headers: NAVIGATION });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('<title>Error 404 · Acme ID</title>');
    expect(page.body).toContain('<p class="acme-error">Nothing for you here. <a href="/account/login">Sign in</a></p>');
  });
});

const sink = await startSmsSink();
afterAll(() => sink.close());
const PRODUCTION_ENV = { NODE_ENV: 'production', PUBLIC_URL: 'https://gatehouse.example', KEYRING_SECRET: 'a production secret of enough length for the ring', SMTP_URL: 'smtp://127.0.0.1:2525' };

describe.each(engines)('the phone-number page on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { PUBLIC_URL, SMS_WEBHOOK_URL: sink.url } });
  const origin = { origin: PUBLIC_URL };
  const number = `+1415556${engine.engine === 'postgres' ? '2' : '1'}${String(process.pid % 1000).padStart(3, '0')}`;

  it('adds a number, confirms it with the texted code and removes it, each by a form with its antiforgery token', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const profile = await ctx.app.inject({ url: '/account/profile', headers: { ...NAVIGATION, cookie } });
    expect(profile.body).toContain('<a href="/account/phone">Add a phone number</a>');

    const add = await pageForm(ctx.app, '/account/phone', '/account/phone', { cookie });
    const forged = await ctx.app.inject({
      method: 'POST',
      url: '/account/phone',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: add.cookie, ...origin },
      payload: new URLSearchParams({ phoneNumber: number }).toString(),
    });
    expect(forged.statusCode).toBe(400);
    expect(json(forged)).toMatchObject({ errors: { __RequestVerificationToken: [expect.any(String)] } });
    expect(sink.last(number)).toBeUndefined();

    const invalid = await add.submit(origin, { phoneNumber: '0415 555 0100' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toMatch(/<input id="phoneNumber" [^>]*aria-invalid="true">/);

    const sent = await add.submit(origin, { phoneNumber: number });
    expect(sent.statusCode).toBe(200);
    expect(sent.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(sent.body).toContain('We texted you a code to confirm the number.');
    expect(sent.body).toContain('action="/account/phone/confirm"');
    const code = sink.last(number)!.text.match(/\b\d{6}\b/)![0];

    const confirm = await pageForm(ctx.app, '/account/phone', '/account/phone/confirm', { cookie });
    const wrong = await confirm.submit(origin, { code: code === '000000' ? '111111' : '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('<p id="phone-code-error" class="error">');
    const confirmed = await confirm.submit(origin, { code });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.body).toContain('Your phone number is confirmed.');
    expect(confirmed.body).not.toContain('action="/account/phone/confirm"');
    expect(json(await ctx.app.inject({ url: '/account/phone', headers: { cookie } }))).toEqual({ available: true, phoneNumber: number, phoneConfirmed: true });

    const remove = await pageForm(ctx.app, '/account/phone', '/account/phone/remove', { cookie });
    const removed = await remove.submit(origin);
    expect(removed.statusCode).toBe(200);
    expect(removed.body).toContain('Your phone number is removed.');
    expect(json(await ctx.app.inject({ url: '/account/profile', headers: { cookie } }))).toMatchObject({ phoneNumber: null, phoneConfirmed: false });
  });

  it('removes the number over JSON too, with no body at all', async () => {
    const { cookie } = await signInWithCookie(ctx);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/phone', headers: { cookie }, payload: { phoneNumber: number } })).statusCode).toBe(202);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/phone/remove', headers: { cookie } })).statusCode).toBe(204);
    expect(json(await ctx.app.inject({ url: '/account/phone', headers: { cookie } }))).toMatchObject({ phoneNumber: null });
  });
});

describe.runIf(sqlite)('the phone-number page in production without an SMS gateway', () => {
  const ctx = useTestApp(sqlite!, { env: PRODUCTION_ENV });

  it('says that text messages are not available, and offers no form', async () => {
    const { cookie } = await signInWithCookie(ctx, { cookieName: '__Host-gh.auth' });
    const page = await ctx.app.inject({ url: '/account/phone', headers: { ...NAVIGATION, cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="phone-unavailable"');
    expect(page.body).not.toContain('<form');
    expect(json(await ctx.app.inject({ url: '/account/phone', headers: { cookie } }))).toMatchObject({ available: false });
  });
});

describe.each(engines)('the resend-confirmation page on $engine', (engine) => {
  const ctx = useTestApp(engine, { env: { PUBLIC_URL } });
  const origin = { origin: PUBLIC_URL };

  async function registered(email: string) {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password: 'a long enough password 1' } });
    expect(response.statusCode).toBe(202);
    await expect.poll(async () => (await readOutbox(ctx, email)).length).toBe(1);
  }

  it('is linked from the refused sign-in of an unconfirmed account and from the end of a registration', async () => {
    const email = `unconfirmed-${engine.engine}@example.com`;
    await registered(email);
    const login = await pageForm(ctx.app, '/account/login', '/account/login');
    const refused = await login.submit(origin, { email, password: 'a long enough password 1' });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain(`href="/account/resend-confirmation?email=${encodeURIComponent(email)}"`);
    const wrongPassword = await login.submit(origin, { email, password: 'not the password at all' });
    expect(wrongPassword.body).not.toContain('/account/resend-confirmation');
    const sentPage = await ctx.app.inject({ url: '/account/register?status=sent', headers: NAVIGATION });
    expect(sentPage.body).toContain('href="/account/resend-confirmation"');
  });

  it('sends a fresh link to an unconfirmed account only, answering every address alike, and the link confirms', async () => {
    const email = `again-${engine.engine}@example.com`;
    await registered(email);
    const { user: confirmed } = await ctx.createUser();
    const answers: string[] = [];
    for (const address of [email, confirmed.email, `nobody-${engine.engine}@example.com`]) {
      const form = await pageForm(ctx.app, `/account/resend-confirmation?email=${encodeURIComponent(address)}`, '/account/resend-confirmation');
      expect(form.fields.email).toBe(address);
      const response = await form.submit(origin);
      expect(response.statusCode).toBe(303);
      answers.push(`${response.headers.location} ${response.body}`);
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toMatch(/^\/account\/resend-confirmation\?status=sent /);
    const done = await ctx.app.inject({ url: '/account/resend-confirmation?status=sent', headers: NAVIGATION });
    expect(done.body).toContain('If an account with this address still needs confirming');

    await expect.poll(async () => (await readOutbox(ctx, email)).length).toBe(2);
    expect(await readOutbox(ctx, confirmed.email)).toEqual([]);
    const [latest, first] = await readOutbox(ctx, email);
    const link = (mail: typeof latest) => new URL(mail!.text.match(/https?:\/\/\S+confirm-email\S+/)![0]);
    // The older link is void; the new one confirms.
    const old = link(first);
    expect((await ctx.app.inject({ url: `${old.pathname}${old.search}` })).statusCode).toBe(400);
    const fresh = link(latest);
    expect(json(await ctx.app.inject({ url: `${fresh.pathname}${fresh.search}` }))).toEqual({ confirmed: true });
  });

  it('takes JSON as the other account routes do: 202 whatever the address, 400 without one', async () => {
    const accepted = await ctx.app.inject({ method: 'POST', url: '/account/resend-confirmation', payload: { email: 'nobody@example.com' } });
    expect([accepted.statusCode, json(accepted)]).toEqual([202, { status: 'confirmation-sent' }]);
    const refused = await ctx.app.inject({ method: 'POST', url: '/account/resend-confirmation', payload: {} });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toMatch(PROBLEM);
  });
});

describe.runIf(sqlite)('the resend-confirmation route under small rate limits', () => {
  const ctx = useTestApp(sqlite!, { env: { RATE_LIMIT_ACCOUNT_PER_MINUTE: '3', RATE_LIMIT_IP_PER_MINUTE: '10' } });

  it('counts requests per address and IP like the other routes that name an address: the fourth is 429', async () => {
    const resend = (email: string) =>
      ctx.app.inject({ method: 'POST', url: '/account/resend-confirmation', payload: { email }, remoteAddress: '10.40.0.1' });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await resend('counted@example.com')).statusCode);
    expect(codes).toEqual([202, 202, 202, 429]);
    expect((await resend('another@example.com')).statusCode).toBe(202);
  });
});
