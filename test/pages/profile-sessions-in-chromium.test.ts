/**
 * "Where you are signed in" on the profile page in a real browser (Debian's Chromium through
 * playwright-core): two browsers of one user see each other in the list, named by their device
 * ("Chrome on Linux", not the user agent), with one "Sign out" per place (this browser's is the
 * page's own); one signs the other out with that session's "Sign out", then, after a second
 * sign-in and a token client, everything else with "Sign out everywhere else". The signed-out
 * browser is sent to the login page; the one that asked stays signed in.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp } from '../helpers/test-app.ts';

// What a browser does on the page does not depend on the database engine (the routes' suites
// run on both): SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

describe.skipIf(!browserReady).each(engines)('the sessions on the profile page in Chromium on $engine', (engine) => {
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

  async function signedIn(context: BrowserContext, login: string, password: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent('/account/profile')}`);
    await page.getByLabel('E-mail or user name').fill(login);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
    return page;
  }

  const entries = (page: Page) => page.locator('#sessions li');
  const isSignedOut = async (page: Page) => {
    await page.goto(`${baseUrl}/account/profile`);
    return new URL(page.url()).pathname === '/account/login';
  };

  it("signs another browser out with its Sign out, and every other session with Sign out everywhere else", async () => {
    const { user, password } = await instance.createUser({ userName: 'sessions-user' });
    const mine = await browser.newContext();
    const theirs = await browser.newContext();
    const page = await signedIn(mine, 'sessions-user', password);
    const other = await signedIn(theirs, 'sessions-user', password);

    await page.reload();
    await expect.poll(() => entries(page).count()).toBe(2);
    const here = entries(page).filter({ hasText: 'This browser' });
    expect(await here.count()).toBe(1);
    expect(await here.locator('p').first().textContent()).toBe('This browser — Chrome on Linux');
    expect(await entries(page).filter({ hasNotText: 'This browser' }).locator('p').first().textContent()).toBe('Chrome on Linux');
    expect(await page.locator('#sessions').textContent()).not.toContain(await page.evaluate(() => navigator.userAgent));
    // One "Sign out" per place: none in this browser's entry, the page's own is this browser's.
    expect(await here.getByRole('button').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign out', exact: true }).count()).toBe(2);
    await Promise.all([
      page.waitForURL(`${baseUrl}/account/profile?status=session-ended#sessions`),
      entries(page).filter({ hasNotText: 'This browser' }).getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect(await page.getByRole('status').first().textContent()).toContain('That session is signed out.');
    expect(await entries(page).count()).toBe(1);
    expect(await isSignedOut(other)).toBe(true);

    // Again elsewhere, and a token client besides.
    const again = await signedIn(theirs, 'sessions-user', password);
    const token = json<{ accessToken: string }>(
      await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } }),
    ).accessToken;
    await page.reload();
    await expect.poll(() => entries(page).count()).toBe(3);
    await Promise.all([
      page.waitForURL(`${baseUrl}/account/profile?status=sessions-ended#sessions`),
      page.getByRole('button', { name: 'Sign out everywhere else' }).click(),
    ]);
    expect(await page.getByRole('status').first().textContent()).toContain('Every other session is signed out.');
    expect(await entries(page).count()).toBe(1);
    expect(await isSignedOut(again)).toBe(true);
    expect((await instance.app.inject({ url: '/me', headers: bearer(token) })).statusCode).toBe(401);
    expect(await isSignedOut(page)).toBe(false);
    await mine.close();
    await theirs.close();
  });
});
