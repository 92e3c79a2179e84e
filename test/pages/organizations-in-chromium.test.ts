/**
 * The organization pages in a real browser (Debian's Chromium through playwright-core): an owner
 * opens /account/organizations, makes the organization active, invites an address from the page,
 * revokes it and invites again; the invitee (registered and confirmed before) opens the mail's
 * link in a browser of their own, signs in from the invitation and accepts; the owner removes
 * them from the page. Refusals come back as the page with the message:
 * an invalid address, and the owner accepting an invitation meant for another address.
 *
 * An application with organizations on (the `features` option), on the library's public entry
 * point: the pages come with the feature, whatever the reference service turns on.
 */
import { mkdir } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { gatehouse, loadConfig, serverOptions } from 'gatehouse-auth/fastify';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';
import { chromiumAvailable, freePort, launchChromium } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';

// What a browser does on the pages does not depend on the database engine: SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

/** A name that would be markup if a page wrote it unescaped. */
const ORGANIZATION = 'Acme <script>alert(1)</script> & Co';

describe.skipIf(!browserReady).each(engines)('the organization pages in Chromium on $engine', (engine) => {
  let browser: Browser;
  let app: FastifyInstance;
  let baseUrl: string;

  beforeAll(async () => {
    browser = await launchChromium();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // PUBLIC_URL names the port: the browser's Origin must be the service's for the cross-site checks.
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: await engine.createDatabaseUrl(), PUBLIC_URL: baseUrl });
    app = Fastify(serverOptions(config));
    await app.register(gatehouse, { config, features: { organizations: true } });
    await app.listen({ host: '127.0.0.1', port });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await engine.dropAll();
  });

  async function signIn(page: Page, login: string, password: string, returnUrl: string): Promise<void> {
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    await signInHere(page, login, password, returnUrl);
  }

  /** Fills the login page the browser is on, and waits for where it sends the browser next. */
  async function signInHere(page: Page, login: string, password: string, landing: string): Promise<void> {
    await page.getByLabel('E-mail or user name').fill(login);
    await page.getByLabel('Password').fill(password);
    await Promise.all([page.waitForURL(`${baseUrl}${landing}`), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  /** Clicks `button` and waits for the 303 back to the list with `status`. */
  async function submit(page: Page, button: ReturnType<Page['getByRole']>, status: string): Promise<void> {
    await Promise.all([page.waitForURL(`${baseUrl}/account/organizations?status=${status}`), button.click()]);
  }

  /** The organizations the JSON list gives the browser's user. */
  async function listed(context: BrowserContext): Promise<{ id: number; name: string; roles: string[]; active: boolean }[]> {
    const response = await context.request.get(`${baseUrl}/account/organizations`, { headers: { accept: 'application/json' } });
    expect(response.status()).toBe(200);
    return (await response.json()) as { id: number; name: string; roles: string[]; active: boolean }[];
  }

  /** The newest mail to `recipient` whose text has a link to `path`: the link. */
  async function mailedLink(recipient: string, path: string): Promise<string> {
    const pattern = new RegExp(`https?://\\S+${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\S*`);
    let link: string | undefined;
    await expect
      .poll(async () => {
        const mails = await app.gatehouse.outbox.list({ recipient });
        link = mails.map((mail) => pattern.exec(mail.text)?.[0]).find((found) => found !== undefined);
        return link;
      })
      .toBeDefined();
    return link!;
  }

  /**
   * What every organization page must be: the strict policy without any script, none in the
   * page, one heading of the page and its main landmark, and a label for every form control.
   */
  async function expectAccessibleStrictPage(page: Page, response: Response | null): Promise<void> {
    const policy = response!.headers()['content-security-policy']!;
    expect(policy).toContain("default-src 'none'");
    // No script at all, not even the passkey script's; nothing inline, styles included: the built-in stylesheet is a file of this origin.
    expect(policy).not.toContain('script-src');
    expect(policy).not.toContain("'unsafe-inline'");
    expect(policy).toContain(" style-src 'self';");
    expect(await page.locator('style, [style]').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.content()).not.toMatch(/\son[a-z]+=/i);
    expect(await page.locator('main h1').count()).toBe(1);
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((control) => ((control as HTMLInputElement).labels?.length ?? 0) === 0).map((control) => control.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    const unnamedButtons = await page.evaluate(() => [...document.querySelectorAll('button')].filter((button) => !(button.getAttribute('aria-label') ?? button.textContent ?? '').trim()).length);
    expect(unnamedButtons).toBe(0);
  }

  it('switches to an organization, invites, revokes, lets the invitee join from the mail, and removes them', async () => {
    const users = gatehouseServices(app.gatehouse).users;
    const ownerPassword = 'the owner has a long passphrase 1';
    const owner = await users.create({ email: 'owner@example.com', userName: 'org-owner', emailConfirmed: true, password: ownerPassword });
    const organization = await app.gatehouse.organizations.createOwnedBy(owner.id, { name: ORGANIZATION }, { by: 'application' });
    const invitee = 'invitee@example.com';
    const inviteePassword = 'the invitee has a long passphrase 2';

    // The invitee has an account already, registered and confirmed from its mail. (Confirming an
    // address joins what it was invited to meanwhile: this one was invited to nothing yet.)
    const registration = await browser.newContext();
    const registering = await registration.newPage();
    await registering.goto(`${baseUrl}/account/register`);
    await registering.getByLabel('E-mail', { exact: true }).fill(invitee);
    await registering.getByLabel('Password').fill(inviteePassword);
    await Promise.all([registering.waitForURL(/status=sent/), registering.getByRole('button', { name: 'Create the account' }).click()]);
    await registering.goto(await mailedLink(invitee, '/account/confirm-email'));
    expect(await registering.locator('h1').textContent()).toBe('E-mail confirmed');
    await registration.close();

    // The owner's page: the organization, none active, its one member and the invite form.
    const ownerContext = await browser.newContext();
    ownerContext.setDefaultTimeout(8000);
    const page = await ownerContext.newPage();
    await signIn(page, 'org-owner', ownerPassword, '/account/organizations');
    const opened = await page.goto(`${baseUrl}/account/organizations`);
    await expectAccessibleStrictPage(page, opened);
    const section = page.locator(`#organization-${organization.id}`);
    // The name is text: no script element came of it.
    expect(await section.getByRole('heading', { level: 2 }).textContent()).toBe(ORGANIZATION);
    expect(await page.locator('#active-organization').textContent()).toContain('No organization is active');
    expect(await section.locator('.member-email').allTextContents()).toEqual(['owner@example.com']);
    // An OrgOwner may invite with every declared role.
    expect(await section.getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value))).toEqual(['OrgOwner', 'OrgAdmin', 'OrgMember']);

    await submit(page, section.getByRole('button', { name: `Switch to ${ORGANIZATION}` }), 'organization-switched');
    expect(await page.getByRole('status').textContent()).toContain('The active organization is changed');
    expect(await page.locator('#active-organization').textContent()).toContain(ORGANIZATION);
    expect(await listed(ownerContext)).toMatchObject([{ id: organization.id, name: ORGANIZATION, active: true }]);

    // An invalid address: the page again, the message in the summary and at the field.
    const email = section.getByLabel('E-mail address to invite');
    await email.fill('not-an-address');
    const [refused] = await Promise.all([page.waitForResponse(`${baseUrl}/orgs/${organization.id}/invite`), section.getByRole('button', { name: 'Send the invitation' }).click()]);
    expect(refused.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('Enter a valid e-mail address.');
    expect(await email.inputValue()).toBe('not-an-address');
    expect(await email.getAttribute('aria-invalid')).toBe('true');

    // Invited, pending, revoked: that first link stops working.
    await email.fill(invitee);
    await submit(page, section.getByRole('button', { name: 'Send the invitation' }), 'invitation-sent');
    expect(await section.locator('.invitation-email').allTextContents()).toEqual([invitee]);
    const revokedLink = await mailedLink(invitee, '/account/invitations/');
    await submit(page, section.getByRole('button', { name: `Revoke the invitation of ${invitee}` }), 'invitation-revoked');
    expect(await section.locator('.invitation-email').count()).toBe(0);
    expect(await section.getByText('No pending invitations.').isVisible()).toBe(true);

    // Again, as OrgMember and OrgAdmin.
    await email.fill(invitee);
    await section.getByLabel('OrgAdmin').check();
    await submit(page, section.getByRole('button', { name: 'Send the invitation' }), 'invitation-sent');
    expect(await section.locator('.invitation').textContent()).toContain('OrgAdmin, OrgMember');
    await mkdir('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/organizations.png', fullPage: true });
    let link = '';
    await expect.poll(async () => (link = await mailedLink(invitee, '/account/invitations/'))).not.toBe(revokedLink);

    // The owner is signed in with another address: Accept is refused beside the form.
    const ownView = await page.goto(link);
    expect(new URL(page.url()).pathname).toMatch(/\/accept$/);
    await expectAccessibleStrictPage(page, ownView);
    expect(await page.locator('#invitation-visitor').textContent()).toContain('owner@example.com');
    const mismatch = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: 'Accept' }).click()]);
    expect(mismatch[0].status()).toBe(403);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('sign in with the invited, confirmed address');
    expect(await page.getByRole('link', { name: `Sign in with ${invitee}` }).isVisible()).toBe(true);

    // The invitee, in a browser of their own: the revoked link is the 404 page; the new one shows the invitation.
    const inviteeContext = await browser.newContext();
    inviteeContext.setDefaultTimeout(8000);
    const theirs = await inviteeContext.newPage();
    const gone = await theirs.goto(revokedLink);
    expect(gone?.status()).toBe(404);
    expect(await theirs.locator('h1').textContent()).toBe('Page not found');
    const invitation = await theirs.goto(link);
    expect(invitation?.status()).toBe(200);
    await expectAccessibleStrictPage(theirs, invitation);
    expect(await theirs.locator('#invitation-organization').textContent()).toBe(ORGANIZATION);
    expect(await theirs.locator('#invitation-email').textContent()).toBe(invitee);
    expect(await theirs.locator('#invitation-roles').textContent()).toBe('OrgAdmin, OrgMember');
    expect(await theirs.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    await theirs.screenshot({ path: 'test-artifacts/invitation.png', fullPage: true });

    // Without an account, the invitee would create one with the invited address first.
    await Promise.all([theirs.waitForURL(`${baseUrl}/account/register`), theirs.getByRole('link', { name: 'Create an account' }).click()]);

    // "Sign in" comes back to the invitation, now with Accept.
    await theirs.goto(link);
    await Promise.all([theirs.waitForURL(/\/account\/login\?ReturnUrl=/), theirs.getByRole('link', { name: 'Sign in' }).click()]);
    expect(new URL(theirs.url()).searchParams.get('ReturnUrl')).toBe(new URL(link).pathname);
    await signInHere(theirs, invitee, inviteePassword, `${new URL(link).pathname}/accept`);
    expect(await theirs.locator('#invitation-visitor').textContent()).toContain(invitee);
    await submit(theirs, theirs.getByRole('button', { name: 'Accept' }), 'invitation-accepted');
    expect(await theirs.getByRole('status').textContent()).toContain('You joined the organization.');
    const joined = theirs.locator(`#organization-${organization.id}`);
    expect(await joined.getByRole('heading', { level: 2 }).textContent()).toBe(ORGANIZATION);
    expect(await listed(inviteeContext)).toMatchObject([{ id: organization.id, roles: ['OrgAdmin', 'OrgMember'], active: false }]);
    // An OrgAdmin manages, but may not invite with OrgOwner.
    expect(await joined.getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value))).toEqual(['OrgAdmin', 'OrgMember']);

    // The owner sees the new member and removes them.
    await page.goto(`${baseUrl}/account/organizations`);
    expect(await section.locator('.member-email').allTextContents()).toEqual(expect.arrayContaining(['owner@example.com', invitee]));
    await submit(page, section.getByRole('button', { name: `Remove ${invitee}` }), 'member-removed');
    expect(await section.locator('.member-email').allTextContents()).toEqual(['owner@example.com']);
    expect(await listed(inviteeContext)).toEqual([]);
    await theirs.goto(`${baseUrl}/account/organizations`);
    expect(await theirs.locator('#organizations-none').isVisible()).toBe(true);

    await ownerContext.close();
    await inviteeContext.close();
  }, 90_000);
});
