/**
 * The pages in a real browser (Debian's Chromium through playwright-core): a protected page
 * redirects to the login page, the form signs in and lands back on the page asked for, the profile
 * shows the account; sign-out ends the session. A screenshot of the profile is kept in
 * test-artifacts/ for people to look at.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';

const engines = await testEngines();
const browserReady = await chromiumAvailable();

describe.skipIf(!browserReady).each(engines)('account pages in Chromium on $engine', (engine) => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    ({ browser, instance, baseUrl } = await chromiumAndService(await engine.createDatabaseUrl()));
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await engine.dropAll();
  });

  it('redirects to the login page, signs in with the form, shows the profile, signs out', async () => {
    const { user, password } = await instance.createUser({ userName: 'browser-user' });
    const context = await browser.newContext();
    const page = await context.newPage();

    const first = await page.goto(`${baseUrl}/account/profile`);
    expect(first?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/account/login');
    expect(new URL(page.url()).searchParams.get('ReturnUrl')).toBe('/account/profile');

    await page.getByLabel('E-mail or user name').fill('browser-user');
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.locator('#profile-email').textContent()).toContain(user.email);
    expect(await page.locator('h1').textContent()).toBe('Your account');

    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: `test-artifacts/profile-${engine.engine}.png`, fullPage: true });

    await Promise.all([page.waitForURL(/\/account\/login/), page.getByRole('button', { name: 'Sign out', exact: true }).last().click()]);
    await page.goto(`${baseUrl}/account/profile`);
    expect(new URL(page.url()).pathname).toBe('/account/login');
    await context.close();
  });

  it('turns the authenticator on from its page, then signs in through the second step with a TOTP code', async () => {
    const { password } = await instance.createUser({ userName: 'careful-user' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl}/account/login?ReturnUrl=%2Faccount%2F2fa`);
    await page.getByLabel('E-mail or user name').fill('careful-user');
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}/account/2fa`), page.getByRole('button', { name: 'Sign in' }).click()]);

    expect(await page.getByRole('img', { name: 'QR code of the authenticator key' }).isVisible()).toBe(true);
    const sharedKey = (await page.locator('.shared-key').textContent())!;
    await page.getByLabel('Code from your authenticator app').fill(totpCode(sharedKey));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await expect.poll(() => page.locator('.recovery-codes li').count()).toBe(10);
    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: `test-artifacts/two-factor-${engine.engine}.png`, fullPage: true });

    await page.goto(`${baseUrl}/account/profile`);
    await Promise.all([page.waitForURL(/\/account\/login/), page.getByRole('button', { name: 'Sign out', exact: true }).last().click()]);
    await page.getByLabel('E-mail or user name').fill('careful-user');
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(/\/account\/login\/2fa/), page.getByRole('button', { name: 'Sign in' }).click()]);
    // The code of the next step: the one enabling used is spent.
    await page.getByLabel(/Code from your authenticator app/).fill(totpCode(sharedKey, 1));
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    expect(await page.locator('#profile-email').isVisible()).toBe(true);
    await context.close();
  });

  it('shows a wrong password as an error on the login page, with the field labelled and the login kept', async () => {
    await instance.createUser({ userName: 'careless-user' });
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/account/login`);
    await page.getByLabel('E-mail or user name').fill('careless-user');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid sign-in attempt');
    expect(await page.getByLabel('E-mail or user name').inputValue()).toBe('careless-user');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await page.close();
  });
});
