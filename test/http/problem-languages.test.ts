/**
 * Problems in the reader's language on every host (docs/errors.md, "Languages"): the title and
 * the detail follow `Accept-Language` (RFC 9457 lets them), `Content-Language` names it, and the
 * `type`, `status` and `code` a client branches on never change. Refusals of every source: the
 * router's 404, a route's refusal, a policy's 401 (with a scheme's reason for refusing a
 * credential; its `WWW-Authenticate` stays English), the body parser's 415 and 400, a form of the
 * account pages; and the notices the routes hand those pages.
 */
import { describe, expect, it } from 'vitest';
import { signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

describe.each(engines)('problems in the reader\'s language on $engine', (engine) => {
  const ctx = useTestApp(engine);

  it('answers an unknown path in German when German is preferred, in English otherwise, the code the same', async () => {
    const german = await ctx.app.inject({ url: '/no-such-path', headers: { 'accept-language': 'de-DE, en;q=0.5' } });
    expect(german.statusCode).toBe(404);
    expect(german.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(german.headers['content-language']).toBe('de');
    expect(german.json()).toMatchObject({ type: 'urn:gatehouse:problem:not-found', title: 'Nicht gefunden', status: 404, code: 'GH_NOT_FOUND', detail: 'Diese Ressource gibt es nicht.' });

    for (const header of [undefined, 'fr', 'en-GB']) {
      const english = await ctx.app.inject({ url: '/no-such-path', headers: header === undefined ? {} : { 'accept-language': header } });
      expect(english.headers['content-language']).toBe('en');
      expect(english.json()).toMatchObject({ title: 'Not Found', code: 'GH_NOT_FOUND', detail: 'There is no such resource.' });
    }
  });

  it("writes a policy's refusal in German: 401 and 403 keep their codes and members", async () => {
    const anonymous = await ctx.app.inject({ url: '/account/sessions', headers: { 'accept-language': 'de' } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-language']).toBe('de');
    expect(anonymous.json()).toMatchObject({ title: 'Nicht angemeldet', code: 'GH_UNAUTHENTICATED' });
  });

  it("writes an API key's refusal in German; its WWW-Authenticate stays as it is", async () => {
    const german = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': 'nonsense', 'accept-language': 'de' } });
    expect(german.statusCode).toBe(401);
    expect(german.headers['content-language']).toBe('de');
    expect(german.headers['www-authenticate']).toBe('ApiKey');
    expect(german.json()).toMatchObject({ title: 'Nicht angemeldet', code: 'GH_UNAUTHENTICATED', detail: 'Der API-Schlüssel ist ungültig.' });

    const missing = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'accept-language': 'de' } });
    expect(missing.json()).toMatchObject({ code: 'GH_UNAUTHENTICATED', detail: 'Der API-Schlüssel fehlt.' });

    const english = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': 'nonsense' } });
    expect(english.headers['www-authenticate']).toBe('ApiKey');
    expect(english.json()).toMatchObject({ code: 'GH_UNAUTHENTICATED', detail: 'Invalid API key' });
  });

  it("writes a bad bearer token's reason in German in the detail, and in English in error_description", async () => {
    const german = { 'accept-language': 'de' };
    const malformed = await ctx.app.inject({ url: '/account/sessions', headers: { ...german, authorization: 'Bearer not-a-token' } });
    expect(malformed.statusCode).toBe(401);
    expect(malformed.headers['content-language']).toBe('de');
    expect(malformed.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The token is malformed."');
    expect(malformed.json()).toMatchObject({ title: 'Nicht angemeldet', code: 'GH_UNAUTHENTICATED', detail: 'Das Token ist fehlerhaft.' });

    // A well-formed token whose signature does not hold: the validator's reason, worded the same way.
    const { user } = await ctx.createUser();
    const [header, payload, signature] = (await ctx.tokenFor(user)).split('.') as [string, string, string];
    const forged = `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const refused = await ctx.app.inject({ url: '/account/sessions', headers: { ...german, authorization: `Bearer ${forged}` } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The token signature is invalid."');
    expect(refused.json()).toMatchObject({ code: 'GH_UNAUTHENTICATED', detail: 'Die Signatur des Tokens ist ungültig.' });

    const english = await ctx.app.inject({ url: '/account/sessions', headers: { authorization: 'Bearer not-a-token' } });
    expect(english.json()).toMatchObject({ code: 'GH_UNAUTHENTICATED', detail: 'The token is malformed.' });
  });

  it("writes a use case's refusal in German: the detail and the field's error", async () => {
    const { user } = await ctx.createUser();
    const change = await ctx.app.inject({
      method: 'POST',
      url: '/account/password',
      headers: { authorization: `Bearer ${await ctx.tokenFor(user)}`, 'accept-language': 'de' },
      payload: { currentPassword: 'not the password at all', newPassword: 'Another-Passw0rd!' },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ title: 'Ungültige Anfrage', code: 'GH_VALIDATION_FAILED', detail: 'Das aktuelle Passwort ist falsch.', errors: { currentPassword: ['Das aktuelle Passwort ist falsch.'] } });
  });

  it('writes the refusals of a body it cannot read in German: a content type it does not take (415), JSON that does not parse (400)', async () => {
    const german = { 'accept-language': 'de' };
    const text = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { ...german, 'content-type': 'text/plain' }, payload: '{"email":"a@b.io","password":"x"}' });
    expect(text.statusCode).toBe(415);
    expect(text.headers['content-language']).toBe('de');
    expect(text.json()).toMatchObject({ title: 'Nicht unterstützter Medientyp', code: 'GH_UNSUPPORTED_MEDIA_TYPE', detail: 'Dieser Endpunkt nimmt diesen Inhaltstyp nicht an.' });

    const broken = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { ...german, 'content-type': 'application/json' }, payload: '{"email": ' });
    expect(broken.statusCode).toBe(400);
    expect(broken.headers['content-language']).toBe('de');
    expect(broken.json()).toMatchObject({ title: 'Ungültige Anfrage', code: 'GH_VALIDATION_FAILED', detail: 'Der Inhalt ist kein gültiges JSON.', errors: { body: ['Der Inhalt ist kein gültiges JSON.'] } });
    const english = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'content-type': 'application/json' }, payload: '{"email": ' });
    expect(english.json()).toMatchObject({ detail: 'The body is not valid JSON.', errors: { body: ['The body is not valid JSON.'] } });
  });

  it("writes a refused form post on an account page in German: the login page again, with why", async () => {
    const { user } = await ctx.createUser();
    const login = await pageForm(ctx.app, '/account/login', '/account/login', { 'accept-language': 'de' });
    const refused = await login.submit({ 'accept-language': 'de' }, { email: user.email, password: 'not the password at all' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toContain('<html lang="de">');
    expect(refused.body).toContain('Ungültiger Anmeldeversuch.');
    expect(refused.body).not.toContain('Invalid sign-in attempt.');

    const english = await login.submit({}, { email: user.email, password: 'not the password at all' });
    expect(english.body).toContain('Invalid sign-in attempt.');
  });

  it("writes a field's error of a form that fails validation in German", async () => {
    const login = await pageForm(ctx.app, '/account/login', '/account/login', { 'accept-language': 'de' });
    const { password: _password, ...withoutPassword } = login.fields;
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/account/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: login.cookie, 'accept-language': 'de' },
      payload: new URLSearchParams({ ...withoutPassword, email: 'someone@example.com' }).toString(),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Dieses Feld ist erforderlich.');
  });

  it("writes the notice a route hands the profile page in German", async () => {
    const { cookie } = await signInWithCookie(ctx);
    const page = (language?: string) =>
      ctx.app.inject({ url: '/account/profile?status=sessions-ended', headers: { accept: 'text/html', cookie, ...(language === undefined ? {} : { 'accept-language': language }) } });
    const german = await page('de');
    expect(german.statusCode).toBe(200);
    expect(german.body).toContain('Alle anderen Sitzungen wurden abgemeldet.');
    expect((await page()).body).toContain('Every other session is signed out.');
  });

  it('reads a hostile Accept-Language on a refusal and a sign-in as any other: English or German, never an error, nothing remembered of it but a language', async () => {
    const hostile = [
      `${Array.from({ length: 1500 }, (_, i) => `x${i};q=0.1`).join(',')},de;q=1`,
      `${'-'.repeat(8000)};q=1`,
      `de${';q=0.9'.repeat(1300)}`,
      ` ,;=q-*`.repeat(1000),
      'de;q=2, en;q=-1, *;q=NaN',
    ];
    const { user, password } = await ctx.createUser();
    for (const header of hostile) {
      const refused = await ctx.app.inject({ url: '/no-such-path', headers: { 'accept-language': header } });
      expect(refused.statusCode, header.slice(0, 40)).toBe(404);
      expect(['en', 'de'], header.slice(0, 40)).toContain(refused.headers['content-language']);
      const signedIn = await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'accept-language': header }, payload: { email: user.email, password } });
      expect(signedIn.statusCode, header.slice(0, 40)).toBe(200);
    }
    expect(['en', 'de']).toContain((await ctx.services.store.users.findById(user.id))?.language);
  });
});
