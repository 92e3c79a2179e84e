/**
 * Invitations to an organization (docs/organizations.md), by real mail through an SMTP server:
 * the link, what it shows anonymously, acceptance bound to the invited confirmed address, single
 * use, revocation, a newer invitation voiding the older, the roles an OrgAdmin may invite with,
 * and a person without an account who registers and lands in the organization on confirming.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const APPLICATION = { by: 'application' } as const;
const PASSWORD = 'a long and uncommon passphrase';
const CODE_PATH = /^\/account\/invitations\/[A-Za-z0-9_-]{43}$/;

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer({ user: 'gatehouse', password: 'smtp-secret' });
});
afterAll(() => smtp.close());

let mailboxes = 0;
function newAddress(): string {
  mailboxes += 1;
  return `invitee${mailboxes}-${process.pid}@example.com`;
}

/** The `count`-th mail to `to` (1-based, the address in any case), waiting for it. */
async function mailNumber(to: string, count: number): Promise<ReceivedMail> {
  const received = () => smtp.messages.filter((message) => message.envelopeTo.some((address) => address.toLowerCase() === to.toLowerCase()));
  await expect.poll(() => received().length, { timeout: 10_000, interval: 25 }).toBeGreaterThanOrEqual(count);
  return received()[count - 1]!;
}

/** The one URL of a mail, as a path to request. */
function onlyLink(mail: ReceivedMail): string {
  const urls = mail.text?.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  expect(urls).toHaveLength(1);
  const url = new URL(urls[0]!);
  return `${url.pathname}${url.search}`;
}

describe.each(engines)('organization invitations on $engine', (engine) => {
  let ctx: TestApp;
  beforeAll(async () => {
    ctx = await startTestApp(await engine.createDatabaseUrl(), {
      env: { SMTP_URL: smtp.url, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0', ORGANIZATION_ROLES: 'Agent' },
    });
  });
  afterAll(async () => {
    await ctx.close();
    await engine.dropAll();
  });
  // No code or link ever reaches the log.
  afterEach(() => expect(ctx.logs.join('')).not.toMatch(/invitations\/[A-Za-z0-9_-]{20,}/));

  async function organizationWithAdmin(roles = ['OrgAdmin']) {
    const owner = await ctx.createUser();
    const admin = await ctx.createUser();
    const organization = await ctx.app.gatehouse.organizations.createOwnedBy(owner.user.id, { name: 'Help Desk <b>' }, APPLICATION);
    await ctx.app.gatehouse.organizations.addMember(organization.id, admin.user.id, roles, APPLICATION);
    return { owner, admin, organization, headers: bearer(await ctx.tokenFor(admin.user)) };
  }

  const invite = (organizationId: number, headers: Record<string, string>, payload: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: `/orgs/${organizationId}/invitations`, headers, payload });

  async function cookieOf(email: string, password: string): Promise<string> {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email, password } });
    expect(response.statusCode).toBe(200);
    return cookiePair(authSetCookie(response)!);
  }

  it('mails a single-use link that shows the invitation anonymously and makes the invited, confirmed address a member', async () => {
    const { organization, headers } = await organizationWithAdmin();
    const invited = await ctx.createUser({ email: newAddress() });
    const created = await invite(organization.id, headers, { email: invited.user.email, roles: ['Agent'] });
    expect(created.statusCode).toBe(201);
    const answer = json<{ id: number; email: string; roles: string[]; expiresAt: string }>(created);
    expect(answer).toEqual({ id: expect.any(Number), email: invited.user.email, roles: ['Agent'], expiresAt: expect.any(String) });
    const sevenDays = Date.parse(answer.expiresAt) - Date.now();
    expect(sevenDays).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(sevenDays).toBeLessThanOrEqual(7 * 86_400_000);

    const mail = await mailNumber(invited.user.email, 1);
    expect(mail.subject).toBe('You are invited to an organization');
    expect(mail.text).not.toContain('<b>');
    const link = onlyLink(mail);
    expect(link).toMatch(CODE_PATH);

    const seen = await ctx.app.inject({ url: link });
    expect(seen.statusCode).toBe(200);
    expect(json(seen)).toEqual({ organization: { id: organization.id, name: 'Help Desk <b>' }, email: invited.user.email, roles: ['Agent'] });

    const cookie = await cookieOf(invited.user.email, invited.password);
    const accepted = await ctx.app.inject({ method: 'POST', url: `${link}/accept`, headers: { cookie } });
    expect(accepted.statusCode).toBe(200);
    expect(json(accepted)).toEqual({ organizationId: organization.id });
    const mine = json<{ id: number; roles: string[] }[]>(await ctx.app.inject({ url: '/account/organizations', headers: { cookie } }));
    expect(mine).toEqual([expect.objectContaining({ id: organization.id, roles: ['Agent'] })]);

    // Used: one answer for every way it stops working.
    expect((await ctx.app.inject({ url: link })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'POST', url: `${link}/accept`, headers: { cookie } })).statusCode).toBe(404);
    const { events } = await ctx.app.gatehouse.audit.page({ limit: 20 });
    const types = events.filter((event) => event.detail?.organizationId === organization.id).map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(['org.member.added', 'org.invitation.accepted', 'org.invitation.created']);
  });

  it('refuses another address with 403 GH_INVITATION_EMAIL_MISMATCH, leaving the invitation usable', async () => {
    const { organization, headers } = await organizationWithAdmin();
    const invited = await ctx.createUser({ email: newAddress() });
    await invite(organization.id, headers, { email: invited.user.email, roles: ['OrgMember'] });
    const link = onlyLink(await mailNumber(invited.user.email, 1));
    const stranger = await ctx.createUser();
    const refused = await ctx.app.inject({ method: 'POST', url: `${link}/accept`, headers: { cookie: await cookieOf(stranger.user.email, stranger.password) } });
    expect(refused.statusCode).toBe(403);
    expect(json(refused).code).toBe('GH_INVITATION_EMAIL_MISMATCH');
    expect((await ctx.app.inject({ url: link })).statusCode).toBe(200);
    const accepted = await ctx.app.inject({ method: 'POST', url: `${link}/accept`, headers: { cookie: await cookieOf(invited.user.email, invited.password) } });
    expect(accepted.statusCode).toBe(200);
  });

  it('voids an older invitation to the same address, lists pending ones, and revokes', async () => {
    const { organization, headers } = await organizationWithAdmin();
    const email = newAddress();
    await invite(organization.id, headers, { email, roles: ['OrgMember'] });
    const first = onlyLink(await mailNumber(email, 1));
    const second = json<{ id: number }>(await invite(organization.id, headers, { email: email.toUpperCase(), roles: ['Agent'] }));
    const secondLink = onlyLink(await mailNumber(email, 2));
    expect((await ctx.app.inject({ url: first })).statusCode).toBe(404);
    expect((await ctx.app.inject({ url: secondLink })).statusCode).toBe(200);
    const pending = json<{ id: number; email: string; roles: string[] }[]>(await ctx.app.inject({ url: `/orgs/${organization.id}/invitations`, headers }));
    expect(pending.map(({ id, roles }) => ({ id, roles }))).toEqual([{ id: second.id, roles: ['Agent'] }]);
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/invitations/${second.id}`, headers });
    expect(revoked.statusCode).toBe(204);
    expect((await ctx.app.inject({ url: secondLink })).statusCode).toBe(404);
    expect(json(await ctx.app.inject({ url: `/orgs/${organization.id}/invitations`, headers }))).toEqual([]);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/invitations/${second.id}`, headers })).statusCode).toBe(404);
  });

  it('lets an OrgAdmin invite within the declared roles but OrgOwner, and nobody else invite at all', async () => {
    const { owner, organization, headers } = await organizationWithAdmin();
    expect((await invite(organization.id, headers, { email: newAddress(), roles: ['OrgOwner'] })).statusCode).toBe(403);
    expect((await invite(organization.id, headers, { email: newAddress(), roles: ['Admin'] })).statusCode).toBe(400);
    expect((await invite(organization.id, headers, { email: 'not an address', roles: ['OrgMember'] })).statusCode).toBe(400);
    const ownerHeaders = bearer(await ctx.tokenFor(owner.user));
    expect((await invite(organization.id, ownerHeaders, { email: newAddress(), roles: ['OrgOwner'] })).statusCode).toBe(201);
    // The OrgAdmin of another organization is nobody here.
    const { headers: elsewhere } = await organizationWithAdmin();
    expect((await invite(organization.id, elsewhere, { email: newAddress(), roles: ['OrgMember'] })).statusCode).toBe(404);
    const plain = await ctx.createUser();
    await ctx.app.gatehouse.organizations.addMember(organization.id, plain.user.id, ['OrgMember'], APPLICATION);
    expect((await invite(organization.id, bearer(await ctx.tokenFor(plain.user)), { email: newAddress(), roles: ['OrgMember'] })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: `/orgs/${organization.id}/invitations`, headers: bearer(await ctx.tokenFor(plain.user)) })).statusCode).toBe(403);
  });

  it('answers unknown and malformed codes alike (404), anonymously', async () => {
    for (const code of ['x'.repeat(43), 'short', '%2e%2e', 'a'.repeat(128)]) {
      const response = await ctx.app.inject({ url: `/account/invitations/${code}` });
      expect(response.statusCode, code).toBe(404);
    }
  });

  it('lands a person without an account in the organization once they register and confirm the invited address', async () => {
    const { organization, headers } = await organizationWithAdmin();
    const email = newAddress();
    await invite(organization.id, headers, { email, roles: ['Agent'] });
    const invitation = onlyLink(await mailNumber(email, 1));
    expect((await ctx.app.inject({ url: invitation })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email, password: PASSWORD } })).statusCode).toBe(202);
    const confirmation = onlyLink(await mailNumber(email, 2));
    expect(confirmation).toMatch(/^\/account\/confirm-email\?/);
    expect((await ctx.app.inject({ url: confirmation })).statusCode).toBe(200);
    const cookie = await cookieOf(email, PASSWORD);
    const mine = json<{ id: number; roles: string[] }[]>(await ctx.app.inject({ url: '/account/organizations', headers: { cookie } }));
    expect(mine).toEqual([expect.objectContaining({ id: organization.id, roles: ['Agent'] })]);
    // Spent by the confirmation.
    expect((await ctx.app.inject({ url: invitation })).statusCode).toBe(404);
  });
});
