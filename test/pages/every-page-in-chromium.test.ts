/**
 * Every page look-in-chromium.test.ts does not look at, in a real browser (Debian's Chromium
 * through playwright-core), at 360 and 1280 px wide and in the light and the dark scheme: the
 * second sign-in step, registration sent, e-mail confirmed (the mail's link), resend
 * confirmation (asked and sent), forgot password (GET /account/reset-password without a code;
 * /account/forgot-password only takes the form's post) and its "sent", reset password (the mail's
 * link) and its end, the authenticator set-up (before turning it on; the answer that turns it on,
 * the recovery codes shown; the page later), the phone page (before and after a code was
 * texted), the 404 and 403 pages, the refusal of an external sign-in, an invitation (anonymous,
 * and signed in with its Accept), and the admin console (overview, users, a user, deleting one,
 * audit, API keys and a new key shown once, signing keys, organizations, an organization).
 * test/helpers/page-tour.ts checks each page four ways: nothing scrolls
 * sideways, every text contrasts at 4.5:1, one `h1` in `main`, labelled controls, named buttons,
 * a visible focus, no policy violation or console error; and screenshots it to
 * test-artifacts/pages/<page>-<width>-<scheme>.png. A summary of what was measured goes to
 * test-artifacts/pages/every-page.json.
 *
 * One browser and one service (the reference service, on SQLite) for the file; each kind of
 * visitor has one context, signed in once. A page is loaded once and measured in the four
 * combinations on the loaded document, so the pages that answer a form post (the recovery codes,
 * a new API key) are not posted again.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Browser, Locator, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/store/ports.ts';
import { chromiumAndService, chromiumAvailable, freePort } from '../helpers/browser.ts';
import { testEngines } from '../helpers/databases.ts';
import { type Card, type TourEntry, tourPage, type Visitor, visitorOf } from '../helpers/page-tour.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { totpCode } from '../helpers/totp.ts';

// What a browser shows does not depend on the database engine: SQLite only.
const engines = (await testEngines()).slice(0, 1);
const browserReady = await chromiumAvailable();

const ARTIFACTS = 'test-artifacts/pages';
const PASSWORD = 'a long and uncommon passphrase 9';
/** Long addresses, as real ones are: they must wrap rather than widen a page at 360 px. */
const ADDRESSES = {
  admin: 'the.administrator.of.this.service@example.com',
  careful: 'careful.tourist.with.an.authenticator@example.com',
  newcomer: 'newcomer.registering.from.the.page@example.com',
  forgetful: 'forgetful.tourist.resetting.a.password@example.com',
  owner: 'owner.of.a.rather.long.organization@example.com',
  invitee: 'invited.member.of.the.organization@example.com',
} as const;
const ORGANIZATION = 'Acme Research & Development International';

describe.skipIf(!browserReady).each(engines)('every page in Chromium on $engine', (engine) => {
  let browser: Browser;
  let instance: TestApp;
  let baseUrl: string;
  /** Not signed in. */
  let anonymous: Visitor;
  /** Signed in, without role Admin; invited to the organization. */
  let invitee: Visitor;
  /** Signed in with role Admin. */
  let admin: Visitor;
  let careful: User;
  let sharedKey = '';
  let owner: User;
  let member: User;
  let organizationId = 0;
  let invitationCode = '';
  const summary: TourEntry[] = [];

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    // An OpenID provider is configured, so that its callback exists, but never reached: the
    // refusal page is the callback's answer to a browser that did not start a sign-in here.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    ({ browser, instance, baseUrl } = await chromiumAndService(await engine.createDatabaseUrl(), {
      env: () => ({ OIDC_ACME_ISSUER: nowhere, OIDC_ACME_CLIENT_ID: 'tour', OIDC_ACME_CLIENT_SECRET: 'tour-secret' }),
    }));
    const users = instance.app.gatehouse.users;
    await users.create({ email: ADDRESSES.admin, userName: 'tour-admin', password: PASSWORD, emailConfirmed: true, roles: ['Admin'] });
    careful = await users.create({ email: ADDRESSES.careful, userName: 'careful-tourist', password: PASSWORD, emailConfirmed: true });
    await users.create({ email: ADDRESSES.forgetful, password: PASSWORD, emailConfirmed: true });
    owner = await users.create({ email: ADDRESSES.owner, password: PASSWORD, emailConfirmed: true });
    member = await users.create({ email: ADDRESSES.invitee, password: PASSWORD, emailConfirmed: true });
    await users.addRole(member.id, 'Auditor');

    const { organizations } = instance.app.gatehouse;
    const organization = await organizations.createOwnedBy(owner.id, { name: ORGANIZATION });
    organizationId = organization.id;
    await organizations.addMember(organization.id, careful.id, ['OrgMember']);
    await organizations.invite({ userId: owner.id }, organization.id, { email: ADDRESSES.invitee, roles: ['OrgAdmin', 'OrgMember'] }, (code) => {
      invitationCode = code;
      return `${baseUrl}/account/invitations/${encodeURIComponent(code)}`;
    });
    await instance.apiKey('reporting-service');

    anonymous = await visitorOf(await newContext());
    invitee = await visitorOf(await newContext());
    admin = await visitorOf(await newContext());
    await signIn(invitee.page, ADDRESSES.invitee, '/account/profile');
    await signIn(admin.page, 'tour-admin', '/admin');
  });
  afterAll(async () => {
    if (summary.length > 0) await writeFile(`${ARTIFACTS}/every-page.json`, `${JSON.stringify(summary, null, 2)}\n`);
    await browser?.close();
    await instance?.close();
    await engine.dropAll();
  });

  async function newContext() {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    return context;
  }

  async function signIn(page: Page, login: string, landing: string | RegExp): Promise<void> {
    const returnUrl = typeof landing === 'string' ? landing : '/account/profile';
    await page.goto(`${baseUrl}/account/login?ReturnUrl=${encodeURIComponent(returnUrl)}`);
    await page.getByLabel('E-mail or user name').fill(login);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(typeof landing === 'string' ? `${baseUrl}${landing}` : landing), page.getByRole('button', { name: 'Sign in', exact: true }).click()]);
  }

  /** Opens `path` and checks that the page answered `status` under the pages' policy. */
  async function open(visitor: Visitor, path: string, status = 200): Promise<Response> {
    const response = (await visitor.page.goto(`${baseUrl}${path}`))!;
    expect(response.status(), path).toBe(status);
    const policy = response.headers()['content-security-policy'] ?? '';
    expect(policy, path).toContain("default-src 'none'");
    expect(policy, path).not.toContain('unsafe-inline');
    return response;
  }

  /** Clicks `button` (a form's submit) and waits for the page that answers to have loaded. */
  async function submit(page: Page, button: Locator): Promise<void> {
    await Promise.all([page.waitForEvent('load'), button.click()]);
  }

  /** The newest mail to `recipient` whose text has a link to `path`: the link. */
  async function mailedLink(recipient: string, path: string): Promise<string> {
    const pattern = new RegExp(`https?://\\S+${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\S*`);
    let link: string | undefined;
    // The mail leaves after the answer (the time taken must not tell whether the address is known).
    await expect
      .poll(async () => {
        const mails = await instance.services.store.outbox.list({ recipient });
        link = mails
          .map((mail) => pattern.exec(mail.text)?.[0])
          .filter((found) => found !== undefined)
          .at(-1);
        return link;
      }, { timeout: 10_000 })
      .toBeDefined();
    return link!;
  }

  async function tour(visitor: Visitor, name: string, card: Card, status: number | null = 200): Promise<void> {
    summary.push(...(await tourPage(visitor, name, { card, status, artifacts: ARTIFACTS })));
  }

  describe('the sign-in and account flows', () => {
    it('registration sent, and e-mail confirmed from the mail', async () => {
      const { page } = anonymous;
      await open(anonymous, '/account/register');
      await page.getByLabel('E-mail', { exact: true }).fill(ADDRESSES.newcomer);
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([page.waitForURL(/status=sent/), page.getByRole('button', { name: 'Create the account' }).click()]);
      await tour(anonymous, 'registration-sent', 'narrow');

      await page.goto(await mailedLink(ADDRESSES.newcomer, '/account/confirm-email'));
      expect(await page.locator('h1').textContent()).toBe('E-mail confirmed');
      await tour(anonymous, 'email-confirmed', 'narrow');
    });

    it('resend confirmation, asked and sent', async () => {
      const { page } = anonymous;
      await open(anonymous, '/account/resend-confirmation');
      await tour(anonymous, 'resend-confirmation', 'narrow');
      await page.getByLabel('E-mail').fill(ADDRESSES.newcomer);
      await Promise.all([page.waitForURL(/status=sent/), page.getByRole('button', { name: 'Send the confirmation mail' }).click()]);
      expect(await page.getByRole('status').count()).toBeGreaterThan(0);
      await tour(anonymous, 'resend-confirmation-sent', 'narrow');
    });

    it('forgot password, reset password from the mail, and reset done', async () => {
      const { page } = anonymous;
      await open(anonymous, '/account/reset-password');
      expect(await page.locator('h1').textContent()).toBe('Reset your password');
      await tour(anonymous, 'forgot-password', 'narrow');
      await page.getByLabel('E-mail').fill(ADDRESSES.forgetful);
      await Promise.all([page.waitForURL(/status=sent/), page.getByRole('button', { name: 'Send a reset link' }).click()]);
      await tour(anonymous, 'forgot-password-sent', 'narrow');

      await page.goto(await mailedLink(ADDRESSES.forgetful, '/account/reset-password?'));
      expect(await page.locator('h1').textContent()).toBe('Choose a new password');
      await tour(anonymous, 'reset-password', 'narrow');
      await page.getByLabel('New password').fill(`${PASSWORD} renewed`);
      await Promise.all([page.waitForURL(/status=done/), page.getByRole('button', { name: 'Set the new password' }).click()]);
      expect(await page.locator('h1').textContent()).toBe('Password changed');
      await tour(anonymous, 'reset-done', 'narrow');
    });

    it('the authenticator set-up, before and after turning it on (the recovery codes shown)', async () => {
      const visitor = await visitorOf(await newContext());
      const { page } = visitor;
      await signIn(page, 'careful-tourist', '/account/2fa');
      expect(await page.getByRole('img', { name: 'QR code of the authenticator key' }).isVisible()).toBe(true);
      await tour(visitor, 'two-factor-setup', 'wide');

      sharedKey = (await page.locator('.shared-key').textContent())!;
      await page.getByLabel('Code from your authenticator app').fill(totpCode(sharedKey));
      await Promise.all([page.waitForURL(`${baseUrl}/account/2fa/enable`), page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click()]);
      expect(await page.locator('.recovery-codes li').count()).toBe(10);
      await tour(visitor, 'two-factor-on', 'wide');
      // The same page later: on, the codes counted, not shown.
      await open(visitor, '/account/2fa');
      expect(await page.locator('.recovery-codes').count()).toBe(0);
      await tour(visitor, 'two-factor-enabled', 'wide');

      await open(visitor, '/account/phone');
      await tour(visitor, 'phone', 'wide');
      await page.getByLabel('Phone number', { exact: true }).fill('+14155557042');
      await submit(page, page.getByRole('button', { name: 'Text me a code' }));
      expect(await page.getByLabel('Code from the text message').count()).toBe(1);
      await tour(visitor, 'phone-code-sent', 'wide');
      await visitor.context.close();
    });

    it('the second sign-in step, for a user with an authenticator', async () => {
      expect(sharedKey, 'the authenticator is on (the test before)').not.toBe('');
      const visitor = await visitorOf(await newContext());
      await signIn(visitor.page, careful.userName ?? ADDRESSES.careful, /\/account\/login\/2fa/);
      expect(await visitor.page.getByLabel(/Code from your authenticator app/).count()).toBe(1);
      await tour(visitor, 'login-2fa', 'narrow');
      await visitor.context.close();
    });

    it('the 404 page', async () => {
      await open(anonymous, '/account/nothing', 404);
      expect(await anonymous.page.locator('h1').textContent()).toBe('Page not found');
      await tour(anonymous, 'not-found', 'narrow', 404);
    });

    it('the 403 page, for a signed-in user without role Admin at /admin', async () => {
      await open(invitee, '/admin', 403);
      expect(await invitee.page.locator('h1').textContent()).toBe('Access denied');
      await tour(invitee, 'access-denied', 'narrow', 403);
    });

    it('the refusal of an external sign-in (its callback, not started here)', async () => {
      await open(anonymous, '/signin-acme?code=x&state=y', 400);
      expect(await anonymous.page.locator('h1').textContent()).toBe('Sign-in refused');
      await tour(anonymous, 'external-login-refused', 'narrow', 400);
    });

    it('an invitation, anonymous and signed in with its Accept', async () => {
      await open(anonymous, `/account/invitations/${encodeURIComponent(invitationCode)}`);
      expect(await anonymous.page.locator('#invitation-organization').textContent()).toBe(ORGANIZATION);
      await tour(anonymous, 'invitation', 'narrow');

      await open(invitee, `/account/invitations/${encodeURIComponent(invitationCode)}`);
      expect(new URL(invitee.page.url()).pathname).toMatch(/\/accept$/);
      expect(await invitee.page.getByRole('button', { name: 'Accept' }).count()).toBe(1);
      await tour(invitee, 'invitation-accept', 'narrow');
    });
  });

  describe('the admin console', () => {
    it('the overview, the users, a user and the page that deletes one', async () => {
      await open(admin, '/admin');
      await tour(admin, 'admin', 'wide');
      await open(admin, '/admin/users');
      expect(await admin.page.locator('table tbody tr').count()).toBeGreaterThanOrEqual(5);
      await tour(admin, 'admin-users', 'wide');
      await open(admin, `/admin/users/${member.id}`);
      expect(await admin.page.locator('#sessions tbody tr').count()).toBeGreaterThan(0);
      await tour(admin, 'admin-user', 'wide');
      await open(admin, `/admin/users/${member.id}/delete`);
      await tour(admin, 'admin-user-delete', 'wide');
    });

    it('the audit log', async () => {
      await open(admin, '/admin/audit');
      expect(await admin.page.locator('table tbody tr').count()).toBeGreaterThan(5);
      await tour(admin, 'admin-audit', 'wide');
    });

    it('the API keys, and a new key shown once', async () => {
      const { page } = admin;
      await open(admin, '/admin/api-keys');
      await tour(admin, 'admin-api-keys', 'wide');
      await page.getByLabel('Client name').fill('nightly-export-of-the-warehouse');
      await Promise.all([page.waitForURL(`${baseUrl}/admin/api-keys?status=key-created`), page.getByRole('button', { name: 'Create a key' }).click()]);
      expect((await page.locator('#new-key-value').textContent())!.length).toBeGreaterThan(20);
      await tour(admin, 'admin-api-key-created', 'wide');
    });

    it('the signing keys', async () => {
      await open(admin, '/admin/signing-keys');
      await tour(admin, 'admin-signing-keys', 'wide');
    });

    it('the organizations and an organization', async () => {
      await open(admin, '/admin/organizations');
      expect(await admin.page.getByRole('link', { name: ORGANIZATION }).count()).toBe(1);
      await tour(admin, 'admin-organizations', 'wide');
      await open(admin, `/admin/organizations/${organizationId}`);
      expect(await admin.page.locator('h1').textContent()).toBe(ORGANIZATION);
      await tour(admin, 'admin-organization', 'wide');
    });
  });
});
