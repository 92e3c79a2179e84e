/**
 * The admin console in a real browser (Debian's Chromium through playwright-core): an admin signs
 * in, finds a user by search, locks and unlocks them, adds and removes a role, ends their
 * sessions, sends an unconfirmed user the confirmation mail again, filters the audit log by type
 * and by user and pages through it, makes an API key (shown once) and revokes it, rotates the
 * signing key and revokes the old one, and reads the organizations and their members. Each page
 * is checked for what every page must be: no script, one heading in its main landmark, a label
 * for every control, a name for every button, a caption and scoped headers for every table.
 * Anyone else is refused: anonymous is sent to log in, a signed-in user without role Admin gets
 * the 403 page. Screenshots go to test-artifacts/admin/.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_NAME_RULE } from '../../src/identity/role-name.ts';
import type { User } from '../../src/store/ports.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { chromiumAndService, chromiumAvailable } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import type { TestApp } from '../helpers/test-app.ts';

// What a browser does on the pages does not depend on the database engine: SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();
const ARTIFACTS = 'test-artifacts/admin';

describe.skipIf(!browserReady).each(engines)('the admin console in Chromium on $engine', (engine) => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;
  let context: BrowserContext;
  let page: Page;
  let admin: User;
  let target: User;
  let unconfirmed: User;

  beforeAll(async () => {
    ({ browser, instance, baseUrl } = await chromiumAndService(await engine.createDatabaseUrl()));
    await mkdir(ARTIFACTS, { recursive: true });
    const adminPassword = 'the admin has a long passphrase 1';
    admin = await instance.app.gatehouse.users.create({ email: 'admin@example.com', userName: 'console-admin', password: adminPassword, emailConfirmed: true, roles: ['Admin'] });
    target = (await instance.createUser({ email: 'target@example.com', userName: 'target-user', password: 'the target has a long passphrase 2' })).user;
    unconfirmed = (await instance.createUser({ email: 'unconfirmed@example.com', emailConfirmed: false })).user;
    context = await browser.newContext();
    context.setDefaultTimeout(8000);
    page = await context.newPage();
    await signIn(page, 'console-admin', adminPassword, '/admin');
  });
  afterAll(async () => {
    await browser?.close();
    await instance?.close();
    await engine.dropAll();
  });

  async function signIn(on: Page, login: string, password: string, returnUrl: string): Promise<void> {
    await on.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    await on.getByLabel('E-mail or user name').fill(login);
    await on.getByLabel('Password').fill(password);
    await Promise.all([on.waitForURL(`${baseUrl}${returnUrl}`), on.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  /** Opens a console page and checks it. */
  async function open(path: string): Promise<void> {
    const response = await page.goto(`${baseUrl}${path}`);
    expect(response?.status(), path).toBe(200);
    await expectAccessible(response);
  }

  /** Clicks `button` and waits for the 303 back to `path` with `status`. */
  async function submit(button: ReturnType<Page['getByRole']>, path: string, status: string): Promise<void> {
    await Promise.all([page.waitForURL(`${baseUrl}${path}?status=${status}`), button.click()]);
    await expectAccessible(null);
  }

  /**
   * What every console page must be: the strict policy without any script, one heading of the
   * page in its main landmark, a label for every control, a name for every button, and tables
   * with a caption and headers that say what they head.
   */
  async function expectAccessible(response: Response | null): Promise<void> {
    if (response !== null) {
      const policy = response.headers()['content-security-policy']!;
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toContain('script-src');
    }
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.content()).not.toMatch(/\son[a-z]+=/i);
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.locator('main h1').count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Admin console' }).count()).toBe(1);
    const problems = await page.evaluate(() => {
      const unlabelled = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter((control) => ((control as HTMLInputElement).labels?.length ?? 0) === 0)
        .map((control) => control.outerHTML);
      const unnamed = [...document.querySelectorAll('button')].filter((button) => !(button.getAttribute('aria-label') ?? button.textContent ?? '').trim()).map((button) => button.outerHTML);
      const uncaptioned = [...document.querySelectorAll('table')].filter((table) => !table.caption?.textContent?.trim()).length;
      const unscoped = [...document.querySelectorAll('th')].filter((header) => !['col', 'row'].includes(header.getAttribute('scope') ?? '')).map((header) => header.outerHTML);
      return { unlabelled, unnamed, uncaptioned, unscoped };
    });
    expect(problems).toEqual({ unlabelled: [], unnamed: [], uncaptioned: 0, unscoped: [] });
  }

  /** The user as the JSON admin API lists it, asked with the browser's own cookie. */
  async function listed(user: User) {
    const response = await context.request.get(`${baseUrl}/admin/users`, { headers: { accept: 'application/json' } });
    expect(response.status()).toBe(200);
    return ((await response.json()) as { id: number; lockedOut: boolean; roles: string[] }[]).find((entry) => entry.id === user.id)!;
  }

  const rows = () => page.locator('table.admin-table tbody tr');
  const userPath = (user: User) => `/admin/users/${user.id}`;

  it('finds a user by search, and locks and unlocks them', async () => {
    expect(new URL(page.url()).pathname).toBe('/admin');
    await expectAccessible(null);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Admin console');
    await page.screenshot({ path: `${ARTIFACTS}/overview.png`, fullPage: true });

    await Promise.all([page.waitForURL(`${baseUrl}/admin/users`), page.getByRole('navigation', { name: 'Admin console' }).getByRole('link', { name: 'Users' }).click()]);
    await expectAccessible(null);
    await page.getByLabel('Search by e-mail or user name').fill('TARGET');
    await Promise.all([page.waitForURL(`${baseUrl}/admin/users?q=TARGET`), page.getByRole('button', { name: 'Search' }).click()]);
    await expectAccessible(null);
    expect(await rows().count()).toBe(1);
    expect(await page.locator('#users-count').textContent()).toBe('1 user matches “TARGET”.');
    await page.screenshot({ path: `${ARTIFACTS}/users.png`, fullPage: true });

    await Promise.all([page.waitForURL(`${baseUrl}${userPath(target)}`), page.getByRole('link', { name: 'target@example.com' }).click()]);
    await expectAccessible(null);
    await submit(page.getByRole('button', { name: 'Lock the account' }), userPath(target), 'locked');
    expect(await page.getByRole('status').first().textContent()).toContain('The account is locked');
    expect(await page.locator('#user-status').textContent()).toBe('Locked by an admin');
    expect((await listed(target)).lockedOut).toBe(true);
    await submit(page.getByRole('button', { name: 'Unlock the account' }), userPath(target), 'unlocked');
    expect(await page.locator('#user-status').textContent()).toBe('Active');
    expect((await listed(target)).lockedOut).toBe(false);
  });

  it('adds and removes a role, and shows a refused name at its field', async () => {
    await open(userPath(target));
    const role = page.getByLabel('Role to add');
    await role.fill('not a role!');
    const [refused] = await Promise.all([page.waitForResponse(`${baseUrl}${userPath(target)}/roles`), page.getByRole('button', { name: 'Add the role' }).click()]);
    expect(refused.status()).toBe(400);
    await expectAccessible(null);
    expect(await page.getByRole('alert').textContent()).toContain(ROLE_NAME_RULE);
    expect(await role.inputValue()).toBe('not a role!');
    expect(await role.getAttribute('aria-invalid')).toBe('true');

    await role.fill('Auditor');
    await submit(page.getByRole('button', { name: 'Add the role' }), userPath(target), 'role-added');
    expect(await page.locator('.admin-roles .role').allTextContents()).toEqual(['Auditor']);
    expect((await listed(target)).roles).toEqual(['Auditor']);
    await submit(page.getByRole('button', { name: 'Remove role Auditor' }), userPath(target), 'role-removed');
    expect(await page.getByText('No roles.').isVisible()).toBe(true);
    expect((await listed(target)).roles).toEqual([]);
  });

  it("ends every session of a user: the user's browser and app are signed out", async () => {
    const signedIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: target.email, password: 'the target has a long passphrase 2' } });
    const cookie = cookiePair(authSetCookie(signedIn)!);
    const token = await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email: target.email, password: 'the target has a long passphrase 2' } });
    expect(token.statusCode).toBe(200);
    await open(userPath(target));
    expect(await page.locator('#sessions tbody tr').count()).toBe(2);
    await page.screenshot({ path: `${ARTIFACTS}/user.png`, fullPage: true });

    await submit(page.getByRole('button', { name: 'End every session' }), userPath(target), 'sessions-ended');
    expect(await page.locator('#sessions').textContent()).toContain('Signed in nowhere.');
    expect((await instance.app.inject({ url: '/account/profile', headers: { cookie } })).statusCode).toBe(401);
  });

  it('sends an unconfirmed user the confirmation mail again', async () => {
    await open(`/admin/users?q=${encodeURIComponent('unconfirmed@')}`);
    await Promise.all([page.waitForURL(`${baseUrl}${userPath(unconfirmed)}`), page.getByRole('link', { name: 'unconfirmed@example.com' }).click()]);
    expect(await page.locator('#user-confirmed').textContent()).toBe('No');
    await submit(page.getByRole('button', { name: 'Send the confirmation mail again' }), userPath(unconfirmed), 'confirmation-sent');
    expect(await page.getByRole('status').first().textContent()).toContain('A new confirmation mail is on its way.');
    await expect
      .poll(async () => (await instance.services.store.outbox.list({ recipient: unconfirmed.email })).map((mail) => mail.text).join('\n'))
      .toContain('/account/confirm-email?userId=');
    // A confirmed user has no such button.
    await open(userPath(target));
    expect(await page.getByRole('button', { name: 'Send the confirmation mail again' }).count()).toBe(0);
  });

  it('filters the audit log by type and by user, pages through it, and refuses a time that is not one', async () => {
    for (let index = 0; index < 55; index++) await instance.app.gatehouse.users.addRole(target.id, `Batch${index}`, { by: admin.id });
    await open('/admin/audit');
    await page.getByLabel('Event type').fill('role.added');
    await page.getByLabel('User id').fill(String(target.id));
    await Promise.all([page.waitForURL(/\/admin\/audit\?type=role\.added&userId=/), page.getByRole('button', { name: 'Filter' }).click()]);
    await expectAccessible(null);
    // The 55 of the batch and the Auditor added from the page: 50 here, 6 on the next page.
    expect(await rows().count()).toBe(50);
    expect(new Set(await rows().locator('td:nth-child(2)').allTextContents())).toEqual(new Set(['role.added']));
    await page.screenshot({ path: `${ARTIFACTS}/audit.png`, fullPage: true });
    await Promise.all([page.waitForURL(/before=/), page.getByRole('link', { name: 'Older events' }).click()]);
    await expectAccessible(null);
    expect(await rows().count()).toBe(6);
    expect(await page.getByRole('link', { name: 'Older events' }).count()).toBe(0);
    expect(await page.getByLabel('Event type').inputValue()).toBe('role.added');
    await Promise.all([page.waitForURL((url) => !url.search.includes('before=')), page.getByRole('link', { name: 'Newest events' }).click()]);
    expect(await rows().count()).toBe(50);

    // By user alone: every event of the target, the lock from the page among them, with the admin named.
    await open(`/admin/audit`);
    await page.getByLabel('User id').fill(String(target.id));
    await Promise.all([page.waitForURL(/userId=/), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(new Set(await rows().locator('td:nth-child(3) a:first-child').allTextContents())).toEqual(new Set([String(target.id)]));
    await page.getByLabel('Event type').fill('user.locked');
    await Promise.all([page.waitForURL(/type=user\.locked/), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(await rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain(`{"by":${admin.id}}`);

    await page.getByLabel('From').fill('yesterday');
    const [refused] = await Promise.all([page.waitForResponse((response) => response.url().includes('from=yesterday')), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(refused.status()).toBe(400);
    await expectAccessible(null);
    expect(await page.getByRole('alert').textContent()).toContain('Give a day (2025-01-31) or a time (2025-01-31T14:30), in UTC.');
    expect(await page.getByLabel('From').getAttribute('aria-invalid')).toBe('true');
  });

  it('keeps the page from scrolling sideways at 360 px: a wide table scrolls in its own named region, which the keyboard reaches and scrolls', async () => {
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 360, height: 800 });
    try {
      await open('/admin/audit');
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(sideways).toBeLessThanOrEqual(0);
      const region = page.getByRole('region', { name: 'Security events, newest first' });
      expect(await region.getAttribute('tabindex')).toBe('0');
      expect(await region.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      // The region is on the Tab order: from the filter's button, past the "Clear" link when there is one.
      await page.getByRole('button', { name: 'Filter' }).focus();
      for (let step = 0; step < 3 && !(await region.evaluate((element) => element === document.activeElement)); step++) await page.keyboard.press('Tab');
      expect(await region.evaluate((element) => element === document.activeElement)).toBe(true);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => region.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0);
      await page.screenshot({ path: `${ARTIFACTS}/audit-360.png`, fullPage: true });
    } finally {
      await page.setViewportSize(wide);
    }
  });

  it('makes an API key shown once, which a reload does not show again, and revokes it', async () => {
    await open('/admin/api-keys');
    await page.getByLabel('Client name').fill('console-client');
    await submit(page.getByRole('button', { name: 'Create a key' }), '/admin/api-keys', 'key-created');
    const key = (await page.locator('#new-key-value').textContent())!;
    expect(key.length).toBeGreaterThan(20);
    await page.screenshot({ path: `${ARTIFACTS}/api-keys.png`, fullPage: true });
    const whoami = () => instance.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } });
    expect((await whoami()).statusCode).toBe(200);

    await page.reload();
    expect(await page.locator('#new-key-value').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await rows().filter({ hasText: 'console-client' }).locator('td').first().textContent()).toBe('1');

    await submit(page.getByRole('button', { name: 'Revoke every key of console-client' }), '/admin/api-keys', 'client-revoked');
    expect((await whoami()).statusCode).toBe(401);
    expect(await rows().filter({ hasText: 'console-client' }).textContent()).toContain('Revoked');
  });

  it('rotates the signing key, the JWKS gaining the new one, and revokes the old one', async () => {
    const kids = async () => ((await (await context.request.get(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
    const before = await kids();
    await open('/admin/signing-keys');
    const old = (await rows().filter({ hasText: 'Current' }).locator('th code').textContent())!;
    expect(before).toContain(old);

    await submit(page.getByRole('button', { name: 'Rotate the signing key' }), '/admin/signing-keys', 'key-rotated');
    const rotated = await kids();
    expect(rotated).toHaveLength(before.length + 1);
    expect(rotated).toContain(old);
    const current = (await rows().filter({ hasText: 'Current' }).locator('th code').textContent())!;
    expect(current).not.toBe(old);
    await page.screenshot({ path: `${ARTIFACTS}/signing-keys.png`, fullPage: true });

    await submit(page.getByRole('button', { name: `Revoke key ${old}` }), '/admin/signing-keys', 'key-revoked');
    expect(await kids()).toEqual([current]);
    expect(await rows().count()).toBe(1);
  });

  it("lists the organizations and an organization's members", async () => {
    const { organizations } = instance.app.gatehouse;
    const organization = await organizations.createOwnedBy(target.id, { name: 'Console & Co' });
    await organizations.addMember(organization.id, unconfirmed.id, ['OrgMember']);
    await open('/admin/organizations');
    const row = rows().filter({ hasText: 'Console & Co' });
    expect(await row.locator('td').nth(1).textContent()).toBe('2');

    await Promise.all([page.waitForURL(`${baseUrl}/admin/organizations/${organization.id}`), row.getByRole('link', { name: 'Console & Co' }).click()]);
    await expectAccessible(null);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Console & Co');
    expect((await rows().locator('th').allTextContents()).sort()).toEqual(['target@example.com', 'unconfirmed@example.com']);
    expect(await rows().filter({ hasText: 'target@example.com' }).textContent()).toContain('OrgAdmin, OrgOwner');
    await page.screenshot({ path: `${ARTIFACTS}/organization.png`, fullPage: true });
    await Promise.all([page.waitForURL(`${baseUrl}${userPath(unconfirmed)}`), page.getByRole('link', { name: 'unconfirmed@example.com' }).click()]);
  });

  it("changes a member's roles and removes a member once the admin is a SuperAdmin, and shows a refusal on the page", async () => {
    const { organizations, users } = instance.app.gatehouse;
    const organization = await organizations.createOwnedBy(target.id, { name: 'Managed & Co' });
    await organizations.addMember(organization.id, unconfirmed.id, ['OrgMember']);
    const path = `/admin/organizations/${organization.id}`;
    await open(path);
    expect(await page.locator('form[method=post]').count()).toBe(0);

    await users.addRole(admin.id, 'SuperAdmin', { by: admin.id });
    try {
      await open(path);
      const group = page.getByRole('group', { name: 'Roles of unconfirmed@example.com' });
      expect(await group.getByLabel('OrgMember').isChecked()).toBe(true);
      await group.getByLabel('OrgAdmin').check();
      await submit(page.getByRole('button', { name: 'Change the roles of unconfirmed@example.com' }), path, 'member-roles-changed');
      expect(await page.getByRole('status').first().textContent()).toContain('The member’s roles are changed.');
      expect((await organizations.members({ userId: admin.id }, organization.id)).find((member) => member.userId === unconfirmed.id)?.roles).toEqual(['OrgAdmin', 'OrgMember']);
      await page.screenshot({ path: `${ARTIFACTS}/organization-managed.png`, fullPage: true });

      const [refused] = await Promise.all([
        page.waitForResponse(`${baseUrl}${path}/members/${target.id}/remove`),
        page.getByRole('button', { name: 'Remove target@example.com from the organization' }).click(),
      ]);
      expect(refused.status()).toBe(409);
      await expectAccessible(null);
      expect(await page.getByRole('alert').textContent()).toContain('An organization keeps at least one OrgOwner');

      await open(path);
      await submit(page.getByRole('button', { name: 'Remove unconfirmed@example.com from the organization' }), path, 'member-removed');
      expect((await rows().locator('th').allTextContents())).toEqual(['target@example.com']);
    } finally {
      await users.removeRole(admin.id, 'SuperAdmin', { by: admin.id });
    }
  });

  it('sends anonymous to the login page, and shows a signed-in user without role Admin the 403 page', async () => {
    const other = await browser.newContext();
    const visitor = await other.newPage();
    await visitor.goto(`${baseUrl}/admin/users`);
    expect(new URL(visitor.url()).pathname).toBe('/account/login');
    expect(new URL(visitor.url()).searchParams.get('ReturnUrl')).toBe('/admin/users');

    const { password } = await instance.createUser({ userName: 'plain-user' });
    await signIn(visitor, 'plain-user', password, '/account/profile');
    for (const path of ['/admin', '/admin/users', userPath(target), '/admin/audit']) {
      const refused = await visitor.goto(`${baseUrl}${path}`);
      expect(refused?.status(), path).toBe(403);
      expect(await visitor.locator('main h1').textContent()).toBe('Access denied');
    }
    await visitor.screenshot({ path: `${ARTIFACTS}/refused.png`, fullPage: true });
    await other.close();
  });
});
