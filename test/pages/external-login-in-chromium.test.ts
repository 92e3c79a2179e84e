/**
 * External sign-in in a real browser: the login page's button for a provider goes to a real
 * OpenID provider on loopback (oidc-provider), whose own pages sign the person in and ask for
 * consent, and back to Gatehouse, which lands on the profile with the provider's e-mail.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import type { TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const browserReady = await chromiumAvailable();

describe.skipIf(!browserReady)('external sign-in in Chromium', () => {
  let browser: Browser;
  let provider: TestProvider;
  let instance: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    ({ browser, instance, baseUrl } = await chromiumAndService(await sqlite!.createDatabaseUrl(), {
      env: async (address) => {
        provider = await startTestProvider(`${address}/signin-acme`);
        return { OIDC_ACME_ISSUER: provider.issuer, OIDC_ACME_CLIENT_ID: provider.clientId, OIDC_ACME_CLIENT_SECRET: provider.clientSecret };
      },
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await provider?.close();
    await sqlite!.dropAll();
  });

  it('signs in through the login page’s provider button and lands on the profile', async () => {
    provider.accounts.set('browser-person', { email: 'browser.person@example.com', emailVerified: true, name: 'Browser Person' });
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/account/profile`);
    expect(new URL(page.url()).pathname).toBe('/account/login');
    await page.getByRole('link', { name: 'acme' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name="login"]').fill('browser-person');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${baseUrl}/account/profile`);
    expect(await page.locator('#profile-email').textContent()).toContain('browser.person@example.com');
    await page.close();
  });

  it('links the provider from the profile page’s “Link acme” button (a form post redirected to the provider)', async () => {
    const { user, password } = await instance.createUser({ userName: 'linking-person' });
    provider.accounts.set('linking-person-at-acme', { email: 'someone.else@example.com', emailVerified: true, name: 'Linking Person' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${baseUrl}/account/login`);
    await page.getByLabel('E-mail or user name').fill('linking-person');
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in' }).click()]);
    expect(await page.locator('#profile-logins').textContent()).toBe('none');

    await page.getByRole('button', { name: 'Link acme' }).click();
    // The form post is redirected to the provider, which the page's form-action must allow.
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name="login"]').fill('linking-person-at-acme');
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${baseUrl}/account/profile`);
    expect(await page.locator('#profile-logins').textContent()).toBe('acme');
    expect(await page.locator('#profile-email').textContent()).toContain(user.email);
    expect((await instance.services.store.externalLogins.listForUser(user.id)).map(({ provider: name }) => name)).toEqual(['acme']);
    await context.close();
  });
});
