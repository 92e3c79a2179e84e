/**
 * The pages' built-in look in a real browser (Debian's Chromium through playwright-core; decision
 * 0094): the login, registration, profile and organizations pages at 360 and 1280 px wide, in the
 * light and the dark scheme. On each: the served stylesheet is in force (the card's width), nothing
 * scrolls sideways, the body text, the heading, a link and the primary button contrast at 4.5:1
 * with what is behind them (computed in the page from computed styles), the keyboard's focus is
 * visible, and the policy refused nothing. A screenshot of each goes to test-artifacts/pages/.
 * Then an application's logo and accent colour: the header shows the logo, the buttons the accent
 * (its lighter shade in the dark scheme).
 *
 * An application with organizations on, on the library's public entry point, as
 * organizations-in-chromium.test.ts has it.
 */
import { mkdir } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { gatehouse, loadConfig, type PageOptions, serverOptions } from 'gatehouse-auth/fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';
import { darkAccent } from '../../src/pages/styles/page-stylesheet.ts';
import { chromiumAvailable, freePort, launchChromium } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';

// What a browser shows does not depend on the database engine: SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

const WIDTHS = [360, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;
const ARTIFACTS = 'test-artifacts/pages';
const PASSWORD = 'a long and uncommon passphrase 9';
const ACCENT = '#0b6e4f';
/** A small logo the application serves itself: a path on this origin, so `img-src 'self'` covers it. */
const LOGO_PATH = '/brand/logo.svg';
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32"><rect width="32" height="32" rx="6" fill="#0b6e4f"/><text x="40" y="22" font-family="sans-serif" font-size="16" fill="#0b6e4f">Acme</text></svg>';

/** What the page reports of itself: its width, its look, its contrasts. */
interface LookReport {
  readonly overflow: number;
  readonly mainMaxWidth: string;
  readonly sheets: number;
  readonly contrasts: Readonly<Record<string, number>>;
  readonly buttonBackground: string;
  readonly accent: string;
}

/** A running application with the pages' options of the test. */
interface Service {
  readonly app: FastifyInstance;
  readonly baseUrl: string;
}

async function startService(databaseUrl: string, pages: PageOptions): Promise<Service> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // PUBLIC_URL names the port: the browser's Origin must be the service's for the cross-site checks.
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, PUBLIC_URL: baseUrl });
  const app = Fastify(serverOptions(config));
  await app.register(gatehouse, { config, features: { organizations: true }, pages });
  app.get(LOGO_PATH, { config: { authorization: { allowAnonymous: true } } }, async (_request, reply) => reply.type('image/svg+xml').send(LOGO));
  await app.listen({ host: '127.0.0.1', port });
  return { app, baseUrl };
}

/**
 * Every policy violation of the context's pages, from the page's own event: installed through
 * DevTools before any document, so the policy does not apply to it.
 */
async function watchViolations(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
}

/** The page's look, measured in the page: contrasts from computed colours over the card's background. */
function measure(page: Page): Promise<LookReport> {
  return page.evaluate(() => {
    const channels = (colour: string) => (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (colour: string) => {
      const [red, green, blue] = channels(colour).map((channel) => {
        const share = channel / 255;
        return share <= 0.04045 ? share / 12.92 : ((share + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * red! + 0.7152 * green! + 0.0722 * blue!;
    };
    const contrast = (first: string, second: string) => {
      const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
      return (lighter! + 0.05) / (darker! + 0.05);
    };
    const main = document.querySelector('main')!;
    const surface = getComputedStyle(main).backgroundColor;
    const text = main.querySelector('label, p, dd') ?? main;
    const link = main.querySelector('a');
    // The page's main action: a submit button of a form that is not marked secondary or danger.
    const button = main.querySelector<HTMLElement>('form:not(.gh-secondary):not(.gh-danger) > button[type=submit]')!;
    const buttonStyle = getComputedStyle(button);
    const contrasts: Record<string, number> = {
      'body text': contrast(getComputedStyle(text).color, surface),
      heading: contrast(getComputedStyle(main.querySelector('h1')!).color, surface),
      'primary button': contrast(buttonStyle.color, buttonStyle.backgroundColor),
      'page header': contrast(getComputedStyle(document.querySelector('.gh-header') ?? document.body).color, getComputedStyle(document.body).backgroundColor),
    };
    if (link !== null) contrasts.link = contrast(getComputedStyle(link).color, surface);
    return {
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      mainMaxWidth: getComputedStyle(main).maxWidth,
      sheets: document.styleSheets.length,
      contrasts,
      buttonBackground: buttonStyle.backgroundColor,
      accent: getComputedStyle(document.documentElement).getPropertyValue('--gh-accent').trim(),
    };
  });
}

/** Tabs until a field or a button has the focus, and tells how that focus shows. */
async function focusShown(page: Page): Promise<{ element: string; outline: string; width: number; shadow: string; contrast: number }> {
  await page.locator('body').focus();
  for (let presses = 0; presses < 40; presses++) {
    await page.keyboard.press('Tab');
    const tag = await page.evaluate(() => document.activeElement?.tagName);
    if (tag === 'INPUT' || tag === 'BUTTON') break;
  }
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement;
    const style = getComputedStyle(element);
    const channels = (colour: string) => (colour.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const luminance = (colour: string) =>
      channels(colour)
        .map((channel) => (channel / 255 <= 0.04045 ? channel / 255 / 12.92 : ((channel / 255 + 0.055) / 1.055) ** 2.4))
        .reduce((sum, value, index) => sum + value * [0.2126, 0.7152, 0.0722][index]!, 0);
    const [lighter, darker] = [luminance(style.outlineColor), luminance(getComputedStyle(document.querySelector('main')!).backgroundColor)].sort((a, b) => b - a);
    return {
      element: `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}`,
      outline: style.outlineStyle,
      width: Number.parseFloat(style.outlineWidth),
      shadow: style.boxShadow,
      contrast: (lighter! + 0.05) / (darker! + 0.05),
    };
  });
}

/** `#rrggbb` as the browser writes a computed colour. */
function rgb(hex: string): string {
  const value = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(value >> 16) & 0xff}, ${(value >> 8) & 0xff}, ${value & 0xff})`;
}

describe.skipIf(!browserReady).each(engines)('the pages\' look in Chromium on $engine', (engine) => {
  let browser: Browser;
  let plain: Service;
  let branded: Service;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    plain = await startService(await engine.createDatabaseUrl(), {});
    branded = await startService(await engine.createDatabaseUrl(), { productName: 'Acme ID', logo: LOGO_PATH, accentColor: ACCENT });
    // A user who owns an organization with a second member: the profile and the organizations page have rows to show.
    const users = gatehouseServices(plain.app.gatehouse).users;
    const owner = await users.create({ email: 'owner.of.a.rather.long.address@example.com', userName: 'look-owner', emailConfirmed: true, password: PASSWORD });
    const member = await users.create({ email: 'second.member@example.com', emailConfirmed: true, password: PASSWORD });
    const organization = await plain.app.gatehouse.organizations.createOwnedBy(owner.id, { name: 'Acme Research & Development' });
    await plain.app.gatehouse.organizations.addMember(organization.id, member.id, ['OrgMember']);
  });
  afterAll(async () => {
    await browser?.close();
    await plain?.app.close();
    await branded?.app.close();
    await engine.dropAll();
  });

  /** A context of the scheme and width, watched for policy violations and console errors. */
  async function contextOf(width: number, scheme: 'light' | 'dark'): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
    await watchViolations(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      // The browser asks for /favicon.ico of its own accord; the pages link none, so a 404 there says nothing about them.
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(message.text());
    });
    return { context, page, errors };
  }

  async function signIn(page: Page, baseUrl: string): Promise<void> {
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent('/account/profile')}`);
    await page.getByLabel('E-mail or user name').fill('look-owner');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(`${baseUrl}/account/profile`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  /** Every check of the look on the page the browser is on, and its screenshot. */
  async function expectGoodLook(page: Page, errors: string[], name: string, width: number, scheme: string, cardWidth: string): Promise<LookReport> {
    const report = await measure(page);
    const where = `${name} at ${width} px, ${scheme}`;
    expect(report.sheets, where).toBe(1);
    expect(report.mainMaxWidth, where).toBe(cardWidth);
    expect(report.overflow, `${where}: scrolls sideways`).toBeLessThanOrEqual(0);
    for (const [what, ratio] of Object.entries(report.contrasts)) expect(ratio, `${where}: ${what}`).toBeGreaterThanOrEqual(4.5);
    // The primary button is the accent of the scheme.
    expect(report.buttonBackground, where).toBe(rgb(report.accent));
    const focus = await focusShown(page);
    expect(focus.outline !== 'none' || focus.shadow !== 'none', `${where}: focus of ${focus.element}`).toBe(true);
    expect(focus.width, `${where}: focus of ${focus.element}`).toBeGreaterThanOrEqual(2);
    expect(focus.contrast, `${where}: focus of ${focus.element}`).toBeGreaterThanOrEqual(3);
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations), where).toEqual([]);
    expect(errors, where).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/${name}-${width}-${scheme}.png`, fullPage: true });
    return report;
  }

  for (const width of WIDTHS) {
    for (const scheme of SCHEMES) {
      it(`gives login, registration, profile and organizations a clean look at ${width} px, ${scheme}`, async () => {
        const { context, page, errors } = await contextOf(width, scheme);
        const stylesheets: number[] = [];
        page.on('response', (response) => {
          if (response.url().endsWith('.css')) stylesheets.push(response.status());
        });

        for (const [name, path] of [['login', '/account/login'], ['register', '/account/register']] as const) {
          const response = await page.goto(`${plain.baseUrl}${path}`);
          const policy = response!.headers()['content-security-policy']!;
          expect(policy).toContain(" style-src 'self';");
          expect(policy).not.toContain('unsafe-inline');
          await expectGoodLook(page, errors, name, width, scheme, '448px');
        }
        await signIn(page, plain.baseUrl);
        await expectGoodLook(page, errors, 'profile', width, scheme, '768px');
        await page.goto(`${plain.baseUrl}/account/organizations`);
        expect(await page.locator('.member-email').count()).toBe(2);
        await expectGoodLook(page, errors, 'organizations', width, scheme, '768px');
        expect(stylesheets.length).toBeGreaterThan(0);
        expect(stylesheets.every((status) => status === 200)).toBe(true);
        await context.close();
      });
    }
  }

  for (const scheme of SCHEMES) {
    it(`shows the application's logo and its accent on the buttons, ${scheme}`, async () => {
      const { context, page, errors } = await contextOf(1280, scheme);
      await page.goto(`${branded.baseUrl}/account/login`);
      const logo = page.locator('header.gh-header img.gh-logo');
      expect(await logo.getAttribute('alt')).toBe('Acme ID');
      await expect.poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);
      expect(await page.locator('.gh-product').count()).toBe(0);
      const report = await expectGoodLook(page, errors, 'login-branded', 1280, scheme, '448px');
      expect(report.buttonBackground).toBe(rgb(scheme === 'light' ? ACCENT : darkAccent(ACCENT)));
      await context.close();
    });
  }
});
