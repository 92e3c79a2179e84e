/**
 * Passkeys in a real browser (Debian's Chromium through playwright-core) with a virtual
 * authenticator of the DevTools protocol (a platform authenticator that keeps discoverable
 * credentials and verifies its user): a passkey is added from the profile, renamed, used to sign
 * in from the login page (back to the ReturnUrl), and removed; a removed passkey then fails on
 * the login page with the error shown there; a passkey without user verification leads a user
 * with two-factor on to the second step. The service runs at http://localhost:<port>: WebAuthn
 * needs a host name as RP ID (never an IP address), and Chromium counts localhost as a secure
 * context. Screenshots are kept in test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';
import { userWithAuthenticator } from '../helpers/two-factor.ts';
import { systemClock } from '../../src/platform/clock.ts';

// What the browser does here does not depend on the database engine (the passkey routes' own
// suites run on both): SQLite only.
const [sqlite] = await testEngines();
const browserReady = await chromiumAvailable();

interface VirtualAuthenticator {
  credentials(): Promise<unknown[]>;
  /** Whether its next ceremonies verify the user (the screen lock succeeds). */
  setUserVerified(verified: boolean): Promise<void>;
}

/** A platform authenticator on this page's target, as a phone or laptop with a screen lock has. */
async function addAuthenticator(context: BrowserContext, page: Page): Promise<VirtualAuthenticator> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    setUserVerified: async (isUserVerified) => {
      await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified });
    },
  };
}

describe.skipIf(!browserReady)('passkeys in Chromium', () => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    ({ browser, instance, baseUrl } = await chromiumAndService(await sqlite!.createDatabaseUrl(), { hostName: 'localhost' }));
    await mkdir('test-artifacts', { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await sqlite?.dropAll();
  });

  async function signInWithPassword(page: Page, login: string, password: string) {
    await page.goto(`${baseUrl}/account/login`);
    await page.getByLabel('E-mail or user name').fill(login);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  // The page's own "Sign out" is its last button of that name: each listed session has one too.
  const signOut = (page: Page) => Promise.all([page.waitForURL(/\/account\/login/), page.getByRole('button', { name: 'Sign out', exact: true }).last().click()]);

  it('adds a passkey from the profile, renames it, signs in with it from the login page, and removes it', async () => {
    const { user, password } = await instance.createUser({ userName: 'passkey-person' });
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    // A CSP violation or a script error would show here, and nowhere else (a refused request is logged too: not counted).
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const authenticator = await addAuthenticator(context, page);

    await signInWithPassword(page, 'passkey-person', password);
    const section = page.locator('#passkeys');
    expect(await section.locator('#passkeys-none').isVisible()).toBe(true);

    await page.getByLabel('Name of the new passkey').fill('Work laptop');
    await Promise.all([page.waitForURL(/status=passkey-added/), page.getByRole('button', { name: 'Add a passkey' }).click()]);
    expect(await page.getByRole('status').textContent()).toContain('passkey is added');
    const item = section.locator('li.passkey');
    await expect.poll(() => item.count()).toBe(1);
    expect(await item.locator('.passkey-name').textContent()).toBe('Work laptop');
    const lastUsed = item.locator('dt:has-text("Last used") + dd');
    expect(await lastUsed.textContent()).toBe('never');
    expect(await authenticator.credentials()).toHaveLength(1);
    const listed = await instance.app.inject({ url: '/account/passkeys', headers: { cookie: await cookieHeader(context) } });
    expect(JSON.parse(listed.body)).toMatchObject([{ name: 'Work laptop', lastUsedAt: null }]);
    await page.screenshot({ path: 'test-artifacts/passkeys-profile.png', fullPage: true });

    await page.getByLabel('New name for Work laptop').fill('Old laptop');
    await Promise.all([page.waitForURL(/status=passkey-renamed/), page.getByRole('button', { name: 'Rename' }).click()]);
    expect(await item.locator('.passkey-name').textContent()).toBe('Old laptop');

    // Signed out, a protected page sends the browser to the login page with its ReturnUrl.
    await signOut(page);
    const login = await page.goto(`${baseUrl}/account/2fa`);
    expect(new URL(page.url()).searchParams.get('ReturnUrl')).toBe('/account/2fa');
    // The page that loads the script may run scripts of this origin, never inline ones; the others none.
    const policy = login!.headers()['content-security-policy']!;
    expect(policy).toContain("script-src 'self'; connect-src 'self';");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-/);
    const register = await context.request.get(`${baseUrl}/account/register`, { headers: { accept: 'text/html' } });
    expect(register.headers()['content-security-policy']).not.toContain('script-src');
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    expect(await button.isVisible()).toBe(true);
    await page.screenshot({ path: 'test-artifacts/passkeys-login.png', fullPage: true });
    await Promise.all([page.waitForURL(`${baseUrl}/account/2fa`), button.click()]);

    await page.goto(`${baseUrl}/account/profile`);
    expect(await page.locator('#profile-email').textContent()).toContain(user.email);
    expect(await lastUsed.textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);

    // Removing it is a security change: this session goes on (re-issued), the list is empty.
    await Promise.all([page.waitForURL(/status=passkey-removed/), page.getByRole('button', { name: 'Remove Old laptop' }).click()]);
    expect(await section.locator('#passkeys-none').isVisible()).toBe(true);
    await page.reload();
    expect(new URL(page.url()).pathname).toBe('/account/profile');

    // The authenticator still holds the credential; the service no longer knows it.
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => page.locator('#passkey-sign-in-error').textContent()).toBe('That passkey did not sign you in.');
    expect(new URL(page.url()).pathname).toBe('/account/login');
    await page.screenshot({ path: 'test-artifacts/passkeys-login-refused.png', fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('signs a user with two-factor on straight in with a verified passkey, and shows a failed screen lock on the page', async () => {
    const { email, password, sharedKey } = await userWithAuthenticator(instance, systemClock, { email: 'two-steps@example.com' });
    const context = await browser.newContext();
    const page = await context.newPage();
    const authenticator = await addAuthenticator(context, page);

    await page.goto(`${baseUrl}/account/login`);
    await page.getByLabel('E-mail or user name').fill(email);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(/\/account\/login\/2fa/), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    // The code of the next step: the one that turned two-factor on is spent.
    await page.getByLabel(/Code from your authenticator app/).fill(totpCode(sharedKey, 1));
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    await page.getByLabel('Name of the new passkey').fill('Phone');
    await Promise.all([page.waitForURL(/status=passkey-added/), page.getByRole('button', { name: 'Add a passkey' }).click()]);

    // With user verification the passkey is both factors: no second step.
    await signOut(page);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in with a passkey' }).click()]);

    // The screen lock fails: the browser refuses before anything is sent, and the page says so.
    await signOut(page);
    await authenticator.setUserVerified(false);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => page.locator('#passkey-sign-in-error').textContent()).toContain('The passkey prompt was closed or timed out');
    expect(new URL(page.url()).pathname).toBe('/account/login');
    expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).isEnabled()).toBe(true);
    await context.close();
  });
});

/** The browser's cookies for the service, as one Cookie header. */
async function cookieHeader(context: BrowserContext): Promise<string> {
  return (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
}
