/**
 * The languages of the pages and the mails (docs/pages.md, "Languages"): chosen from
 * `Accept-Language` among English and German, English when the header names neither; the
 * application's fixed language winning over the header; its own catalogue (a language with every
 * key, or one English key overridden) used; a German registration getting a German mail whose
 * link still confirms; and a language added without every key stopping the start.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { en, type LanguageOptions } from 'gatehouse-auth';
import { testEngines } from '../helpers/databases.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json } from '../helpers/test-app.ts';

const engines = await testEngines();
const PASSWORD = 'a long and uncommon passphrase';
const HTML = { accept: 'text/html' };

/** A page's language and its `<h1>`. */
function pageOf(body: string): { lang: string | undefined; title: string | undefined } {
  return { lang: /<html lang="([^"]*)">/.exec(body)?.[1], title: /<h1>([^<]*)<\/h1>/.exec(body)?.[1] };
}

describe.each(engines)('languages on $engine', (engine) => {
  let smtp: TestSmtpServer;
  const apps: FastifyInstance[] = [];
  let mailboxes = 0;
  const newAddress = () => `lang${++mailboxes}-${process.pid}@example.com`;

  /** An application with these languages, its mail going to the test SMTP server. */
  async function start(i18n?: LanguageOptions): Promise<FastifyInstance> {
    const settings = { databaseUrl: await engine.createDatabaseUrl(), publicUrl: 'http://acme.test', smtpUrl: smtp.url, rateLimitAccountPerMinute: 0, rateLimitIpPerMinute: 0 };
    const app = Fastify(serverOptions(configFromSettings(settings)));
    apps.push(app);
    await app.register(gatehouse, { settings, ...(i18n ? { i18n } : {}) });
    await app.ready();
    return app;
  }

  let app: FastifyInstance;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await start();
  });
  afterAll(async () => {
    for (const started of apps) await started.close();
    await smtp?.close();
    await engine.dropAll();
  });

  const login = (target: FastifyInstance, acceptLanguage?: string) =>
    target.inject({ url: '/account/login', headers: { ...HTML, ...(acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage }) } });

  it('shows the login and register pages in German for Accept-Language: de', async () => {
    const page = await login(app, 'de');
    expect(page.statusCode).toBe(200);
    expect(pageOf(page.body)).toEqual({ lang: 'de', title: 'Anmelden' });
    expect(page.body).toContain('Passwort vergessen?');
    expect(page.body).toContain('<title>Anmelden · Gatehouse</title>');

    const register = await app.inject({ url: '/account/register', headers: { ...HTML, 'accept-language': 'de' } });
    expect(pageOf(register.body)).toEqual({ lang: 'de', title: 'Konto erstellen' });
    expect(register.body).toContain('Mindestens');
  });

  it.each([
    ['de-CH;q=0.9, en;q=0.8', 'de', 'Anmelden'],
    ['fr', 'en', 'Sign in'],
    [undefined, 'en', 'Sign in'],
  ])('answers Accept-Language %j with %s', async (header, lang, title) => {
    expect(pageOf((await login(app, header)).body)).toEqual({ lang, title });
  });

  it('sends a German confirmation mail to a German registration, its link confirming, and shows the profile in German', async () => {
    const email = newAddress();
    const registered = await app.inject({ method: 'POST', url: '/account/register', headers: { 'accept-language': 'de' }, payload: { email, password: PASSWORD } });
    expect(registered.statusCode).toBe(202);

    const mail = await smtp.waitForMail(email);
    expect(mail.subject).toBe('Bestätigen Sie Ihre E-Mail-Adresse');
    expect(mail.text).toContain('Um Ihre E-Mail-Adresse für Ihr Konto bei Gatehouse zu bestätigen, öffnen Sie diesen Link:');
    expect(mail.html).toContain('Meine E-Mail-Adresse bestätigen');
    const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
    expect(urls).toHaveLength(1);
    const link = new URL(urls[0]!);
    const confirmed = await app.inject({ url: `${link.pathname}${link.search}` });
    expect(json(confirmed)).toEqual({ confirmed: true });

    const signedIn = await app.inject({ method: 'POST', url: '/account/login', payload: { email, password: PASSWORD } });
    expect(signedIn.statusCode).toBe(200);
    const cookie = signedIn.cookies.map(({ name, value }) => `${name}=${value}`).join('; ');
    const profile = await app.inject({ url: '/account/profile', headers: { ...HTML, cookie, 'accept-language': 'de-DE' } });
    expect(profile.statusCode).toBe(200);
    expect(pageOf(profile.body)).toEqual({ lang: 'de', title: 'Ihr Konto' });
    expect(profile.body).toContain('Ändern Sie Ihr Passwort');
  });

  /** Five wrong passwords: the account locks, and its owner gets the lockout mail. */
  async function lockOut(email: string, acceptLanguage?: string): Promise<void> {
    const headers = acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage };
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await app.inject({ method: 'POST', url: '/account/login', headers, payload: { email, password: 'not the password' } });
      expect(refused.statusCode).toBe(401);
    }
  }

  it("sends the lockout mail in the language its owner registered in, not in the language of the requests that locked the account", async () => {
    const email = newAddress();
    await app.inject({ method: 'POST', url: '/account/register', headers: { 'accept-language': 'de' }, payload: { email, password: PASSWORD } });
    await smtp.waitForMail(email);
    await lockOut(email, 'en-GB');
    const lockout = await smtp.waitForMail(email, { matching: (mail) => mail.subject !== 'Bestätigen Sie Ihre E-Mail-Adresse' });
    expect(lockout.subject).toBe('Ihr Konto wurde gesperrt');
  });

  it('remembers the language a sign-in states for the mails that follow, and nothing from a request that states none', async () => {
    const email = newAddress();
    await app.gatehouse.users.create({ email, password: PASSWORD, emailConfirmed: true });
    const signIn = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/auth/token', headers, payload: { email, password: PASSWORD } });
    expect((await signIn({ 'accept-language': 'de-AT' })).statusCode).toBe(200);
    expect((await signIn({})).statusCode).toBe(200);
    expect((await app.gatehouse.users.findByEmail(email))?.language).toBe('de');
    await lockOut(email);
    expect((await smtp.waitForMail(email)).subject).toBe('Ihr Konto wurde gesperrt');
  });

  it('keeps an English registration’s mail English', async () => {
    const email = newAddress();
    await app.inject({ method: 'POST', url: '/account/register', headers: { 'accept-language': 'en-US' }, payload: { email, password: PASSWORD } });
    expect((await smtp.waitForMail(email)).subject).toBe('Confirm your e-mail address');
  });

  it('speaks the application’s fixed language whatever the header says', async () => {
    const fixed = await start({ fixedLanguage: 'de' });
    expect(pageOf((await login(fixed, 'en')).body)).toEqual({ lang: 'de', title: 'Anmelden' });
  });

  it('uses the application’s catalogues: a language of its own, and an English key overridden', async () => {
    const own = await start({ languages: { fr: { ...en, loginTitle: 'Se connecter' }, en: { loginTitle: 'Welcome back' } } });
    expect(pageOf((await login(own, 'fr-FR, en;q=0.5')).body)).toEqual({ lang: 'fr', title: 'Se connecter' });
    expect(pageOf((await login(own, 'en')).body)).toEqual({ lang: 'en', title: 'Welcome back' });
    expect(pageOf((await login(own, 'de')).body)).toEqual({ lang: 'de', title: 'Anmelden' });
  });
});

describe('a language without every key', () => {
  it('stops the start, naming the missing keys', async () => {
    const app = Fastify();
    const started = app.register(gatehouse, { settings: { databaseUrl: 'sqlite::memory:' }, i18n: { languages: { fr: { loginTitle: 'Se connecter' } } } }).ready();
    await expect(started).rejects.toThrow(/i18n\.languages\.fr adds a language without the keys .*loginSubmit/);
    await app.close().catch(() => undefined);
  });

  it('and a misspelt option stops it too', async () => {
    const app = Fastify();
    const started = app.register(gatehouse, { settings: { databaseUrl: 'sqlite::memory:' }, i18n: { fixedLanguages: 'de' } as never }).ready();
    await expect(started).rejects.toThrow(/i18n has no option "fixedLanguages"/);
    await app.close().catch(() => undefined);
  });
});
