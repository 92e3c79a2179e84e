/**
 * GraphiQL offline, in a real browser (Debian's Chromium through playwright-core): every request
 * to a host other than the loopback address is aborted, as on a machine without a network, and
 * `/graphiql` still renders its editor, fetches the schema and runs a query against `/graphql`.
 * The page's policy (`script-src 'self'`, no inline script) reports no violation: each script
 * the page needs is a file the service serves. A screenshot is kept in test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import type { TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const browserReady = await chromiumAvailable();

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What the page did that the test forbids: requests off this machine, policy violations, errors. */
interface Offences {
  readonly offMachine: string[];
  readonly violations: string[];
  readonly errors: string[];
}

/** A page whose every request to a non-loopback host is aborted, with its violations recorded. */
async function offlinePage(browser: Browser): Promise<{ page: Page; offences: Offences }> {
  const offences: Offences = { offMachine: [], violations: [], errors: [] };
  const context = await browser.newContext();
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if ((url.protocol === 'http:' || url.protocol === 'ws:') && LOOPBACK.has(url.hostname)) return route.continue();
    offences.offMachine.push(url.href);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  // Runs through the DevTools protocol, which the page's CSP does not govern.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const seen = ((window as unknown as { cspViolations?: string[] }).cspViolations ??= []);
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) offences.violations.push(message.text());
  });
  page.on('pageerror', (error) => offences.errors.push(error.message));
  return { page, offences };
}

describe.skipIf(!browserReady)('GraphiQL offline in Chromium (SQLite)', () => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    ({ browser, instance, baseUrl } = await chromiumAndService(await sqlite!.createDatabaseUrl()));
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await sqlite!.dropAll();
  });

  it('renders and runs a query with the network cut off, and reports no CSP violation', async () => {
    const { user } = await instance.createUser({ userName: 'graphiql-author' });
    await instance.data.posts.create({ authorId: user.id, title: 'Written offline', body: 'b', createdAt: Date.now() });
    const { page, offences } = await offlinePage(browser);

    const loaded = await page.goto(`${baseUrl}/graphiql`);
    expect(loaded?.status()).toBe(200);
    // The editor is up once GraphiQL has rendered its query editor.
    const editor = page.locator('.graphiql-query-editor .CodeMirror');
    await editor.waitFor({ state: 'visible' });

    await editor.evaluate((element, query) => {
      (element as unknown as { CodeMirror: { setValue(value: string): void } }).CodeMirror.setValue(query);
    }, '{ posts(first: 5) { title author { userName } } }');
    const [answer] = await Promise.all([
      page.waitForResponse(
        (response) =>
          new URL(response.url()).pathname === '/graphql' &&
          response.request().method() === 'POST' &&
          (response.request().postData() ?? '').includes('posts(first: 5)'),
      ),
      page.getByRole('button', { name: /Execute query/ }).click(),
    ]);
    expect(answer.status()).toBe(200);
    await expect.poll(() => page.locator('.graphiql-response').textContent()).toContain('Written offline');
    expect(await page.locator('.graphiql-response').textContent()).toContain('graphiql-author');

    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/graphiql-offline.png', fullPage: true });

    const reported = await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
    expect(reported).toEqual([]);
    expect(offences).toEqual({ offMachine: [], violations: [], errors: [] });
    await page.context().close();
  });

  it('blocks an inline script on the page: the policy is enforced, not only declared', async () => {
    const { page, offences } = await offlinePage(browser);
    await page.goto(`${baseUrl}/graphiql`);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor({ state: 'visible' });
    // An injected inline script, as markup injection would add one: the policy must refuse it.
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.inlineRan = true;';
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 0));
      return (window as unknown as { inlineRan?: boolean }).inlineRan === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? [])).toEqual([
      expect.stringMatching(/^script-src/),
    ]);
    expect(offences.offMachine).toEqual([]);
    await page.context().close();
  });
});
