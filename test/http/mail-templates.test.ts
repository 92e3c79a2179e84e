/**
 * An application's mails (docs/mails.md), over real SMTP: its product name in every mail and as
 * the sender, its own template for the confirmation mail, the built-in one for the reset, the
 * links under its prefix and working, and a template that breaks a rule stopping the start
 * before anything opens.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { testEngines } from '../helpers/databases.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { json } from '../helpers/test-app.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://acme.test';
const PREFIX = '/identity';
const PASSWORD = 'a long and uncommon passphrase';

/** The mail's one URL, which must be its HTML's one href too. */
function onlyLink(mail: ReceivedMail): URL {
  const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  expect(urls).toHaveLength(1);
  const hrefs = [...(mail.html ?? '').matchAll(/\shref="([^"]*)"/g)].map((match) => match[1]!.replaceAll('&#38;', '&').replaceAll('&amp;', '&'));
  expect(hrefs).toEqual(urls);
  return new URL(urls[0]!);
}

describe.each(engines)('an application’s mails on $engine', (engine) => {
  let smtp: TestSmtpServer;
  let app: FastifyInstance;
  let mailboxes = 0;
  const newAddress = () => `acme${++mailboxes}-${process.pid}@example.com`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const settings = {
      databaseUrl: await engine.createDatabaseUrl(),
      publicUrl: PUBLIC_URL,
      smtpUrl: smtp.url,
      rateLimitAccountPerMinute: 0,
      rateLimitIpPerMinute: 0,
    };
    app = Fastify(serverOptions(configFromSettings(settings)));
    await app.register(gatehouse, {
      settings,
      prefix: PREFIX,
      pages: { productName: 'Acme ID' },
      mails: {
        templates: {
          confirmEmail: ({ link, productName }, kit) => ({
            subject: `Welcome to ${productName}`,
            text: `Welcome to ${productName}!\n\nConfirm your address:\n${link}\n`,
            html: `<p>Welcome to ${kit.escapeHtml(productName)}!</p><p><a href="${kit.escapeHtml(link)}">Confirm your address</a></p>`,
          }),
        },
      },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
    await engine.dropAll();
  });

  it('sends the confirmation mail of the application’s template, from its product, with a link under the prefix that confirms', async () => {
    const email = newAddress();
    const registered = await app.inject({ method: 'POST', url: `${PREFIX}/account/register`, payload: { email, password: PASSWORD } });
    expect(registered.statusCode).toBe(202);

    const mail = await smtp.waitForMail(email);
    expect(mail.subject).toBe('Welcome to Acme ID');
    expect(mail.text).toMatch(/^Welcome to Acme ID!\n\nConfirm your address:\nhttp:\/\/acme\.test\/identity\/account\/confirm-email\?userId=\d+&code=[\w-]{43}\n*$/);
    expect(mail.html).toContain('<p>Welcome to Acme ID!</p>');
    expect(mail.parsed.from).toMatchObject({ name: 'Acme ID', address: 'no-reply@acme.test' });
    const link = onlyLink(mail);
    expect(link.origin).toBe(PUBLIC_URL);
    expect(link.pathname).toBe(`${PREFIX}/account/confirm-email`);

    const confirmed = await app.inject({ url: `${link.pathname}${link.search}` });
    expect(confirmed.statusCode).toBe(200);
    expect(json(confirmed)).toEqual({ confirmed: true });
    const signedIn = await app.inject({ method: 'POST', url: `${PREFIX}/account/login`, payload: { email, password: PASSWORD } });
    expect(signedIn.statusCode).toBe(200);
  });

  it('sends the built-in reset mail in the product’s name, both parts, with a link under the prefix that resets', async () => {
    const email = newAddress();
    await app.gatehouse.users.create({ email, password: PASSWORD, emailConfirmed: true });
    const asked = await app.inject({ method: 'POST', url: `${PREFIX}/account/forgot-password`, payload: { email } });
    expect(asked.statusCode).toBe(202);

    const mail = await smtp.waitForMail(email);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('To choose a new password for your Acme ID account, open this link:');
    expect(mail.html).toContain('Acme ID');
    for (const part of [mail.subject, mail.text, mail.html]) expect(part).not.toMatch(/gatehouse/i);
    const link = onlyLink(mail);
    expect(link.pathname).toBe(`${PREFIX}/account/reset-password`);
    expect(link.searchParams.get('email')).toBe(email);

    const newPassword = 'the new and uncommon passphrase';
    const reset = await app.inject({ method: 'POST', url: `${PREFIX}/account/reset-password`, payload: { email, code: link.searchParams.get('code'), newPassword } });
    expect(reset.statusCode).toBe(204);
    expect((await app.inject({ method: 'POST', url: `${PREFIX}/account/login`, payload: { email, password: newPassword } })).statusCode).toBe(200);
  });
});

describe('a mail template that breaks a rule', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'gatehouse-mail-templates-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('stops the start, naming the template and the rule, before the database is opened', async () => {
    const databaseFile = join(folder, 'never.db');
    const app = Fastify();
    const started = app
      .register(gatehouse, {
        settings: { databaseUrl: `sqlite:${databaseFile}` },
        mails: { templates: { confirmEmail: ({ link }) => ({ subject: 'Confirm\nBcc: eve@example.com', text: `${link}\n` }) } },
      })
      .ready();
    await expect(started).rejects.toThrow(/^The "confirmEmail" mail template returned a subject with a line break/);
    expect(existsSync(databaseFile)).toBe(false);
    await app.close().catch(() => undefined);
  });

  it('and a misspelt mail name stops it too', async () => {
    const app = Fastify();
    const started = app.register(gatehouse, { settings: { databaseUrl: 'sqlite::memory:' }, mails: { templates: { confirmMail: () => ({ subject: 'x', text: 'x' }) } as never } }).ready();
    await expect(started).rejects.toThrow('mails.templates has no option "confirmMail"; did you mean "confirmEmail"?');
    await app.close().catch(() => undefined);
  });
});
