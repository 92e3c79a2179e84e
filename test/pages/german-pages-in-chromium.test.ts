/**
 * The pages in German, in a real browser whose language is German (Debian's Chromium through
 * playwright-core, `locale: 'de-DE'`, so every request says `Accept-Language: de-DE`): the
 * account pages signed out and signed in, a refused form, the error page, and the admin console.
 * Each page is checked as every page is (test/helpers/page-tour.ts: nothing scrolls sideways at
 * 360 px, where German's longer words are the test, contrast, labels, focus, no policy
 * violation) and screenshotted as `de-<page>-<width>-<scheme>.png` in test-artifacts/pages/.
 * Beyond that, no English text of the catalogues may show on a German page: every English text
 * of eight characters or more is looked for in what the page shows.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { de, en, type Messages } from '../../src/index.ts';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import { type Card, tourPage, type Visitor, visitorOf } from '../helpers/page-tour.ts';
import type { TestApp } from '../helpers/test-app.ts';

// What a browser shows does not depend on the database engine: SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

const ARTIFACTS = 'test-artifacts/pages';
const PASSWORD = 'ein langes und seltenes Passwort 9';
const ADMIN = 'die.administratorin.dieses.dienstes@example.com';
const MEMBER = 'ein.mitglied.mit.langer.adresse@example.com';

/** The English texts a German page must not show: those of eight characters or more that German words otherwise. */
const ENGLISH_TEXTS = (Object.keys(en) as (keyof Messages)[])
  .map((key) => ({ key, text: en[key], german: de[key] }))
  .filter((entry): entry is { key: keyof Messages; text: string; german: string } => typeof entry.text === 'string' && typeof entry.german === 'string')
  .filter(({ text, german }) => text.length >= 8 && !german.includes(text));

describe.skipIf(!browserReady).each(engines)('the pages in German in Chromium on $engine', (engine) => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;
  let anonymous: Visitor;
  let member: Visitor;
  let admin: Visitor;
  let memberId = 0;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    ({ browser, instance, baseUrl } = await chromiumAndService(await engine.createDatabaseUrl()));
    const { users, organizations } = instance.app.gatehouse;
    const owner = await users.create({ email: ADMIN, userName: 'verwaltung', password: PASSWORD, emailConfirmed: true, roles: ['Admin'] });
    memberId = (await users.create({ email: MEMBER, password: PASSWORD, emailConfirmed: true })).id;
    const organization = await organizations.createOwnedBy(owner.id, { name: 'Forschung und Entwicklung GmbH' });
    await organizations.addMember(organization.id, memberId, ['OrgMember']);
    anonymous = await visitorOf(await germanContext());
    member = await visitorOf(await germanContext());
    admin = await visitorOf(await germanContext());
    await signIn(member.page, MEMBER, '/account/profile');
    await signIn(admin.page, 'verwaltung', '/admin');
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await engine.dropAll();
  });

  async function germanContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'de-DE' });
    context.setDefaultTimeout(10_000);
    return context;
  }

  async function signIn(page: Page, login: string, landing: string): Promise<void> {
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent(landing)}`);
    await page.getByLabel('E-Mail-Adresse oder Benutzername').fill(login);
    await page.getByLabel('Passwort', { exact: true }).fill(PASSWORD);
    await Promise.all([page.waitForURL(`${baseUrl}${landing}`), page.getByRole('button', { name: 'Anmelden', exact: true }).click()]);
  }

  /** The page `visitor` is on, checked in German and toured (as `de-<name>`). */
  async function germanPage(visitor: Visitor, name: string, card: Card, status = 200): Promise<void> {
    const { page } = visitor;
    expect(await page.getAttribute('html', 'lang'), name).toBe('de');
    const shown = await page.locator('body').innerText();
    const leaks = ENGLISH_TEXTS.filter(({ text }) => shown.includes(text)).map(({ key, text }) => `${key}: ${text}`);
    expect(leaks, `${name}: English texts on the German page`).toEqual([]);
    await tourPage(visitor, `de-${name}`, { card, status, artifacts: ARTIFACTS });
  }

  async function open(visitor: Visitor, path: string, status = 200): Promise<void> {
    const response = await visitor.page.goto(`${baseUrl}${path}`);
    expect(response?.status(), path).toBe(status);
  }

  it('the sign-in flows, a refused sign-in with its error, and the error page', async () => {
    await open(anonymous, '/account/login');
    expect(await anonymous.page.locator('h1').textContent()).toBe('Anmelden');
    await germanPage(anonymous, 'login', 'narrow');

    const { page } = anonymous;
    await page.getByLabel('E-Mail-Adresse oder Benutzername').fill(MEMBER);
    await page.getByLabel('Passwort', { exact: true }).fill('nicht das Passwort');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Anmelden', exact: true }).click()]);
    expect(await page.getByRole('alert').innerText()).not.toMatch(/Invalid|attempt/);
    await germanPage(anonymous, 'login-refused', 'narrow', 401);

    await open(anonymous, '/account/register');
    await germanPage(anonymous, 'register', 'narrow');
    await open(anonymous, '/account/reset-password');
    await germanPage(anonymous, 'forgot-password', 'narrow');
    await open(anonymous, '/account/no-such-page', 404);
    await germanPage(anonymous, 'not-found', 'narrow', 404);
  });

  it('the profile and the organizations of a signed-in member', async () => {
    await open(member, '/account/profile');
    await germanPage(member, 'profile', 'wide');
    await open(member, '/account/organizations');
    await germanPage(member, 'organizations', 'wide');
  });

  it('the admin console', async () => {
    for (const [name, path] of [
      ['admin-home', '/admin'],
      ['admin-users', '/admin/users'],
      ['admin-user', `/admin/users/${memberId}`],
      ['admin-audit', '/admin/audit'],
      ['admin-api-keys', '/admin/api-keys'],
      ['admin-signing-keys', '/admin/signing-keys'],
      ['admin-organizations', '/admin/organizations'],
    ] as const) {
      await open(admin, path);
      await germanPage(admin, name, 'wide');
    }
  });
});
