/**
 * The phone-number and resend-confirmation pages in a real browser (Debian's Chromium through
 * playwright-core): a number is added from the profile and confirmed with the code of the text
 * message (the dev outbox, as the service keeps them without a gateway outside production); an
 * unconfirmed account asks for its confirmation mail again from the refused sign-in, and the
 * mail, received by a real SMTP server, confirms it. A browser refused a page under /admin sees
 * a page, not JSON.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import { readOutbox, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import type { TestApp } from '../helpers/test-app.ts';

// What a browser does on these pages does not depend on the database engine (the routes' own
// suites run on both): one engine, SQLite, keeps the suite's time down.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

describe.skipIf(!browserReady).each(engines)('phone and confirmation pages in Chromium on $engine', (engine) => {
  let browser: Browser;
  let instance: TestApp;
  let smtp: TestSmtpServer;
  let baseUrl: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    ({ browser, instance, baseUrl } = await chromiumAndService(await engine.createDatabaseUrl(), { env: () => ({ SMTP_URL: smtp.url }) }));
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await smtp?.close();
    await engine.dropAll();
  });

  async function signIn(page: Page, login: string, password: string, returnUrl: string) {
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    await page.getByLabel('E-mail or user name').fill(login);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}${returnUrl}`), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  it('adds a phone number from the profile, confirms it with the texted code, and removes it', async () => {
    const { password } = await instance.createUser({ userName: `phone-user-${engine.engine}` });
    const number = engine.engine === 'postgres' ? '+14155557002' : '+14155557001';
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `phone-user-${engine.engine}`, password, '/account/profile');

    await Promise.all([page.waitForURL(`${baseUrl}/account/phone`), page.getByRole('link', { name: 'Add a phone number' }).click()]);
    await page.getByLabel('Phone number', { exact: true }).fill(number);
    await page.getByRole('button', { name: 'Text me a code' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('We texted you a code');

    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: `test-artifacts/phone-${engine.engine}.png`, fullPage: true });

    const [sms] = await readOutbox(instance, number);
    expect(sms).toMatchObject({ channel: 'sms', recipient: number });
    const code = sms!.text.match(/\b\d{6}\b/)![0];
    await page.getByLabel('Code from the text message').fill(code);
    await page.getByRole('button', { name: 'Confirm the number' }).click();
    await expect.poll(() => page.locator('#phone-status').textContent()).toContain(`${number}, confirmed`);

    await page.goto(`${baseUrl}/account/profile`);
    expect(await page.locator('#profile-phone').textContent()).toContain(number);

    await page.goto(`${baseUrl}/account/phone`);
    await page.getByRole('button', { name: 'Remove the phone number' }).click();
    await expect.poll(() => page.locator('#phone-status').textContent()).toBe('No phone number yet.');
    await context.close();
  });

  it('sends the confirmation mail again from the refused sign-in, and its link confirms the account', async () => {
    const email = `late-${engine.engine}@example.com`;
    const password = 'a long and uncommon passphrase 7';
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${baseUrl}/account/register`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(/status=sent/), page.getByRole('button', { name: 'Create the account' }).click()]);
    expect(await page.getByRole('link', { name: 'Send the confirmation mail again' }).isVisible()).toBe(true);
    await smtp.waitForMail(email);

    await page.goto(`${baseUrl}/account/login`);
    await page.getByLabel('E-mail or user name').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Confirm your e-mail address');

    await Promise.all([page.waitForURL(/\/account\/resend-confirmation/), page.getByRole('link', { name: 'Send the confirmation mail again' }).click()]);
    expect(await page.getByLabel('E-mail').inputValue()).toBe(email);
    await Promise.all([page.waitForURL(/status=sent/), page.getByRole('button', { name: 'Send the confirmation mail' }).click()]);
    expect(await page.getByRole('status').textContent()).toContain('a new confirmation link is on its way');

    const mails = () => smtp.messages.filter((message) => message.envelopeTo.includes(email));
    await expect.poll(() => mails().length).toBe(2);
    const link = mails()[1]!.text!.match(/https?:\/\/\S+/)![0];
    expect(new URL(link).origin).toBe(baseUrl);
    await page.goto(link);
    expect(await page.locator('h1').textContent()).toBe('E-mail confirmed');

    await signIn(page, email, password, '/account/profile');
    expect(await page.locator('#profile-email').textContent()).toBe(email);

    // Signed in without the Admin role: the admin API refuses, as a page.
    const refused = await page.goto(`${baseUrl}/admin/users`);
    expect(refused?.status()).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('Access denied');
    await context.close();
  });
});
