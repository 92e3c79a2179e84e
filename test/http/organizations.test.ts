/**
 * Organizations from outside (docs/organizations.md): creation, the active organization and how
 * it shapes the principal of cookie sessions and access tokens, members and their roles with
 * the last-owner rule, delegated administration, and what removal and deletion take away at
 * once. Invitations: test/http/organization-invitations.test.ts; other instances:
 * test/instances/organization-removal.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/store/ports.ts';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const APPLICATION = { by: 'application' } as const;

interface Account {
  readonly user: User;
  readonly password: string;
}

async function cookieOf(ctx: TestApp, { user, password }: Account): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return cookiePair(authSetCookie(response)!);
}

async function tokens(ctx: TestApp, { user, password }: Account, extra: Record<string, unknown> = {}) {
  return ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password, ...extra } });
}

function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe.each(engines)('organizations on $label', (engine) => {
  const ctx = useTestApp(engine);

  /** A token for the user as the store has it now (its claims stamp moves with each claims change). */
  async function freshToken(account: Account): Promise<string> {
    const user = await ctx.app.gatehouse.users.findById(account.user.id);
    return ctx.tokenFor(user!);
  }

  /** An organization owned by a new user, with a member of `roles`. */
  async function organizationWithMember(roles: string[] = ['OrgMember']) {
    const owner = await ctx.createUser();
    const member = await ctx.createUser();
    const organization = await ctx.app.gatehouse.organizations.createOwnedBy(owner.user.id, { name: 'Acme Corp' }, APPLICATION);
    await ctx.app.gatehouse.organizations.addMember(organization.id, member.user.id, roles, APPLICATION);
    return { owner, member, organization };
  }

  describe('creation', () => {
    it('lets a SuperAdmin create one, makes the creator OrgOwner and OrgAdmin, and refuses others while self-service is off', async () => {
      const superAdmin = await ctx.createUser({ roles: ['SuperAdmin'] });
      const headers = bearer(await ctx.tokenFor(superAdmin.user));
      const created = await ctx.app.inject({ method: 'POST', url: '/orgs', headers, payload: { name: 'Café Züri' } });
      expect(created.statusCode).toBe(201);
      const organization = json<{ id: number; name: string; slug: string }>(created);
      expect(organization).toEqual({ id: expect.any(Number), name: 'Café Züri', slug: 'cafe-zuri' });
      const mine = await ctx.app.inject({ url: '/account/organizations', headers });
      expect(json(mine)).toEqual([{ id: organization.id, name: 'Café Züri', slug: 'cafe-zuri', roles: ['OrgAdmin', 'OrgOwner'], active: false }]);

      const plain = await ctx.createUser();
      const refused = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: bearer(await ctx.tokenFor(plain.user)), payload: { name: 'Mine' } });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('answers a user without SuperAdmin 403 before reading the body (the pipeline decides)', async () => {
      const plain = await ctx.createUser();
      const headers = { ...bearer(await ctx.tokenFor(plain.user)), 'content-type': 'application/json' };
      const malformed = await ctx.app.inject({ method: 'POST', url: '/orgs', headers, payload: '{"name": ' });
      expect(malformed.statusCode).toBe(403);
      expect((await ctx.app.inject({ method: 'POST', url: '/orgs', payload: { name: 'Anonymous' } })).statusCode).toBe(401);
    });

    it('makes a free slug from the name, refuses a malformed one (400) and a taken one (409)', async () => {
      const superAdmin = await ctx.createUser({ roles: ['SuperAdmin'] });
      const headers = bearer(await ctx.tokenFor(superAdmin.user));
      const create = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/orgs', headers, payload });
      expect(json(await create({ name: 'Acme' })).slug).toBe('acme');
      expect(json(await create({ name: 'ACME!' })).slug).toBe('acme-2');
      for (const slug of ['A-cme', 'a', 'a_b', 'x'.repeat(65), 'acme corp']) {
        const response = await create({ name: 'Other', slug });
        expect(response.statusCode, slug).toBe(400);
        expect(json(response).errors).toHaveProperty('slug');
      }
      expect((await create({ name: 'Other', slug: 'acme' })).statusCode).toBe(409);
      expect(json(await create({ name: 'Other', slug: 'other-co' })).slug).toBe('other-co');
      expect((await create({ name: '   ' })).statusCode).toBe(400);
    });
  });

  describe('the active organization', () => {
    it('is chosen for a cookie session, shapes its principal from the next request, and is remembered for the next sign-in', async () => {
      const { member, organization } = await organizationWithMember(['OrgAdmin']);
      const cookie = await cookieOf(ctx, member);
      const settings = `/orgs/${organization.id}/settings`;
      // Nothing is active until chosen: OrgAdmin of it is not carried yet.
      expect((await ctx.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(403);
      const chosen = await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId: organization.id } });
      expect(chosen.statusCode).toBe(204);
      expect((await ctx.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(200);
      const listed = json<{ id: number; active: boolean }[]>(await ctx.app.inject({ url: '/account/organizations', headers: { cookie } }));
      expect(listed).toEqual([expect.objectContaining({ id: organization.id, active: true })]);

      // A new sign-in, by cookie or for tokens, starts there.
      expect((await ctx.app.inject({ url: settings, headers: { cookie: await cookieOf(ctx, member) } })).statusCode).toBe(200);
      const pair = json<{ accessToken: string }>(await tokens(ctx, member));
      expect(claimsOf(pair.accessToken)).toMatchObject({ org_id: String(organization.id), role: ['OrgAdmin'] });

      // null clears it, remembered too.
      const cleared = await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId: null } });
      expect(cleared.statusCode).toBe(204);
      expect((await ctx.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(403);
      expect(claimsOf(json<{ accessToken: string }>(await tokens(ctx, member)).accessToken)).not.toHaveProperty('org_id');
    });

    it('answers 404 for an organization the user is not a member of, and changes nothing', async () => {
      const { member, organization } = await organizationWithMember(['OrgAdmin']);
      const { organization: other } = await organizationWithMember();
      const cookie = await cookieOf(ctx, member);
      await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId: organization.id } });
      for (const organizationId of [other.id, 424242]) {
        const refused = await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId } });
        expect(refused.statusCode).toBe(404);
      }
      expect((await ctx.app.inject({ url: `/orgs/${organization.id}/settings`, headers: { cookie } })).statusCode).toBe(200);
      for (const organizationId of ['1', 0, -1, 1.5]) {
        const malformed = await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId } });
        expect(malformed.statusCode, String(organizationId)).toBe(400);
      }
    });

    it('issues tokens for the organizationId of /auth/token and /auth/refresh, keeps the family\'s on a refresh without it, and refuses a non-member with 403 GH_NOT_A_MEMBER', async () => {
      const { member, organization } = await organizationWithMember(['OrgAdmin']);
      const { organization: other } = await organizationWithMember();
      const first = await tokens(ctx, member, { organizationId: organization.id });
      expect(first.statusCode).toBe(200);
      const pair = json<{ accessToken: string; refreshToken: string }>(first);
      expect(claimsOf(pair.accessToken)).toMatchObject({ org_id: String(organization.id), role: ['OrgAdmin'] });

      const kept = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } });
      const keptPair = json<{ accessToken: string; refreshToken: string }>(kept);
      expect(claimsOf(keptPair.accessToken)).toMatchObject({ org_id: String(organization.id) });

      const notMember = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: keptPair.refreshToken, organizationId: other.id } });
      expect(notMember.statusCode).toBe(403);
      expect(json(notMember).code).toBe('GH_NOT_A_MEMBER');
      // Nothing rotated: the same refresh token still works, and clears the organization.
      const cleared = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: keptPair.refreshToken, organizationId: null } });
      expect(cleared.statusCode).toBe(200);
      expect(claimsOf(json<{ accessToken: string }>(cleared).accessToken)).not.toHaveProperty('org_id');

      const refused = await tokens(ctx, member, { organizationId: other.id });
      expect(refused.statusCode).toBe(403);
      expect(json(refused).code).toBe('GH_NOT_A_MEMBER');
      expect(json(refused)).not.toHaveProperty('accessToken');
    });

    it('carries the active organization\'s roles only, never another\'s, and replaces a custom org_id claim', async () => {
      const { member, organization } = await organizationWithMember(['OrgAdmin']);
      const { organization: other } = await organizationWithMember();
      await ctx.app.gatehouse.organizations.addMember(other.id, member.user.id, ['OrgMember'], APPLICATION);
      await ctx.app.gatehouse.users.addClaim(member.user.id, { type: 'org_id', value: String(other.id) });
      const inOther = claimsOf(json<{ accessToken: string }>(await tokens(ctx, member, { organizationId: other.id })).accessToken);
      expect(inOther).toMatchObject({ org_id: String(other.id), role: ['OrgMember'] });
      const inFirst = claimsOf(json<{ accessToken: string }>(await tokens(ctx, member, { organizationId: organization.id })).accessToken);
      expect(inFirst).toMatchObject({ org_id: String(organization.id), role: ['OrgAdmin'] });
      const none = claimsOf(json<{ accessToken: string }>(await tokens(ctx, member, { organizationId: null })).accessToken);
      expect(none).not.toHaveProperty('org_id');
      expect(none.role).toEqual([]);
    });
  });

  describe('members, roles and delegated administration', () => {
    it('lists members for a member, and tells a non-member nothing (404), an Admin everything', async () => {
      const { owner, member, organization } = await organizationWithMember();
      const list = async (account: Account) => ctx.app.inject({ url: `/orgs/${organization.id}/members`, headers: bearer(await ctx.tokenFor(account.user)) });
      const listed = json<{ userId: number; email: string; userName: string | null; roles: string[]; joinedAt: string }[]>(await list(member));
      expect(listed.map(({ userId, roles }) => ({ userId, roles }))).toEqual([
        { userId: owner.user.id, roles: ['OrgAdmin', 'OrgOwner'] },
        { userId: member.user.id, roles: ['OrgMember'] },
      ]);
      expect(listed[1]).toMatchObject({ email: member.user.email, joinedAt: expect.stringMatching(/Z$/) });
      const stranger = await ctx.createUser();
      expect((await list(stranger)).statusCode).toBe(404);
      expect((await ctx.app.inject({ url: `/orgs/${organization.id}`, headers: bearer(await ctx.tokenFor(stranger.user)) })).statusCode).toBe(404);
      const admin = await ctx.createUser({ roles: ['Admin'] });
      expect((await list(admin)).statusCode).toBe(200);
      const read = await ctx.app.inject({ url: `/orgs/${organization.id}`, headers: bearer(await ctx.tokenFor(admin.user)) });
      expect(json(read)).toEqual({ id: organization.id, name: 'Acme Corp', slug: organization.slug, createdAt: expect.stringMatching(/Z$/) });
    });

    it('lets an OrgAdmin change roles within the declared set, only an OrgOwner grant or take OrgOwner, and nobody a global role', async () => {
      const { owner, member, organization } = await organizationWithMember(['OrgAdmin']);
      const target = await ctx.createUser();
      await ctx.app.gatehouse.organizations.addMember(organization.id, target.user.id, ['OrgMember'], APPLICATION);
      const patch = async (account: Account, userId: number, roles: unknown) =>
        ctx.app.inject({ method: 'PATCH', url: `/orgs/${organization.id}/members/${userId}`, headers: bearer(await freshToken(account)), payload: { roles } });

      const changed = await patch(member, target.user.id, ['OrgAdmin', 'OrgMember']);
      expect(changed.statusCode).toBe(200);
      expect(json(changed)).toMatchObject({ userId: target.user.id, roles: ['OrgAdmin', 'OrgMember'] });
      expect((await patch(member, target.user.id, ['OrgOwner'])).statusCode).toBe(403);
      expect((await patch(member, owner.user.id, ['OrgAdmin'])).statusCode).toBe(403);
      for (const roles of [['Admin'], ['SuperAdmin'], ['orgadmin'], ['Billing']]) {
        const refused = await patch(member, target.user.id, roles);
        expect(refused.statusCode, roles.join()).toBe(400);
        expect(json(refused).errors).toHaveProperty('roles');
      }
      expect((await patch(owner, target.user.id, ['OrgOwner'])).statusCode).toBe(200);
      // The new owner takes OrgAdmin from the member, who then manages nothing, not even their own roles.
      expect((await patch(target, member.user.id, ['OrgMember'])).statusCode).toBe(200);
      expect((await patch(member, member.user.id, ['OrgAdmin'])).statusCode).toBe(403);
      expect((await patch(owner, 424242, ['OrgMember'])).statusCode).toBe(404);
    });

    it('keeps one OrgOwner: demoting, removing or the leaving of the last one is 409', async () => {
      const { owner, member, organization } = await organizationWithMember();
      const headers = bearer(await ctx.tokenFor(owner.user));
      const demote = await ctx.app.inject({ method: 'PATCH', url: `/orgs/${organization.id}/members/${owner.user.id}`, headers, payload: { roles: ['OrgAdmin'] } });
      expect(demote.statusCode).toBe(409);
      const leave = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${owner.user.id}`, headers });
      expect(leave.statusCode).toBe(409);
      // With a second owner, the first may go.
      await ctx.app.inject({ method: 'PATCH', url: `/orgs/${organization.id}/members/${member.user.id}`, headers, payload: { roles: ['OrgOwner'] } });
      expect((await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${owner.user.id}`, headers })).statusCode).toBe(204);
      const members = await ctx.app.gatehouse.organizations.members({ userId: member.user.id }, organization.id);
      expect(members.map((each) => each.userId)).toEqual([member.user.id]);
    });

    it('lets a member leave, an OrgAdmin remove a member but not an OrgOwner, and refuses a plain member', async () => {
      const { owner, member, organization } = await organizationWithMember(['OrgAdmin']);
      const plain = await ctx.createUser();
      const leaver = await ctx.createUser();
      for (const account of [plain, leaver]) await ctx.app.gatehouse.organizations.addMember(organization.id, account.user.id, ['OrgMember'], APPLICATION);
      const remove = async (account: Account, userId: number) =>
        ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${userId}`, headers: bearer(await ctx.tokenFor(account.user)) });
      expect((await remove(plain, member.user.id)).statusCode).toBe(403);
      expect((await remove(member, owner.user.id)).statusCode).toBe(403);
      expect((await remove(leaver, leaver.user.id)).statusCode).toBe(204);
      expect((await remove(member, plain.user.id)).statusCode).toBe(204);
      expect((await remove(member, plain.user.id)).statusCode).toBe(404);
    });
  });

  describe('what removal and deletion take away', () => {
    it('refuses the removed member\'s access tokens at once and re-reads the cookie session without the organization', async () => {
      const { owner, member, organization } = await organizationWithMember(['OrgAdmin']);
      const settings = `/orgs/${organization.id}/settings`;
      const token = json<{ accessToken: string; refreshToken: string }>(await tokens(ctx, member, { organizationId: organization.id }));
      const cookie = await cookieOf(ctx, member);
      expect((await ctx.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(200);
      expect((await ctx.app.inject({ url: settings, headers: bearer(token.accessToken) })).statusCode).toBe(200);

      const removed = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${member.user.id}`, headers: bearer(await ctx.tokenFor(owner.user)) });
      expect(removed.statusCode).toBe(204);

      expect((await ctx.app.inject({ url: settings, headers: bearer(token.accessToken) })).statusCode).toBe(401);
      // The session goes on, without the organization.
      expect((await ctx.app.inject({ url: '/me', headers: { cookie } })).statusCode).toBe(200);
      expect((await ctx.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(403);
      // The refresh family lives on; its next token carries no organization.
      const refreshed = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: token.refreshToken } });
      expect(refreshed.statusCode).toBe(200);
      expect(claimsOf(json<{ accessToken: string }>(refreshed).accessToken)).not.toHaveProperty('org_id');
    });

    it('refuses the member\'s tokens once their organization roles change, and issues the new roles on refresh', async () => {
      const { owner, member, organization } = await organizationWithMember(['OrgAdmin']);
      const pair = json<{ accessToken: string; refreshToken: string }>(await tokens(ctx, member, { organizationId: organization.id }));
      const settings = `/orgs/${organization.id}/settings`;
      expect((await ctx.app.inject({ url: settings, headers: bearer(pair.accessToken) })).statusCode).toBe(200);
      const demoted = await ctx.app.inject({
        method: 'PATCH',
        url: `/orgs/${organization.id}/members/${member.user.id}`,
        headers: bearer(await freshToken(owner)),
        payload: { roles: ['OrgMember'] },
      });
      expect(demoted.statusCode).toBe(200);
      expect((await ctx.app.inject({ url: settings, headers: bearer(pair.accessToken) })).statusCode).toBe(401);
      const refreshed = json<{ accessToken: string }>(await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: pair.refreshToken } }));
      expect(claimsOf(refreshed.accessToken)).toMatchObject({ org_id: String(organization.id), role: ['OrgMember'] });
      expect((await ctx.app.inject({ url: settings, headers: bearer(refreshed.accessToken) })).statusCode).toBe(403);
    });

    it('lets only an OrgOwner or a SuperAdmin delete it; deletion refuses every member\'s tokens carrying it', async () => {
      const { owner, member, organization } = await organizationWithMember(['OrgAdmin']);
      const memberToken = json<{ accessToken: string }>(await tokens(ctx, member, { organizationId: organization.id })).accessToken;
      const refused = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}`, headers: bearer(memberToken) });
      expect(refused.statusCode).toBe(403);
      const deleted = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}`, headers: bearer(await ctx.tokenFor(owner.user)) });
      expect(deleted.statusCode).toBe(204);
      expect((await ctx.app.inject({ url: '/me', headers: bearer(memberToken) })).statusCode).toBe(401);
      expect((await ctx.app.inject({ url: `/orgs/${organization.id}`, headers: bearer(await freshToken(owner)) })).statusCode).toBe(404);
      expect(json(await ctx.app.inject({ url: '/account/organizations', headers: bearer(await freshToken(member)) }))).toEqual([]);
    });

    it('renames and re-slugs for an OrgAdmin (409 for a taken slug), and audits every change with detail.organizationId', async () => {
      const { member, organization } = await organizationWithMember(['OrgAdmin']);
      const { organization: other } = await organizationWithMember();
      const headers = bearer(await ctx.tokenFor(member.user));
      const renamed = await ctx.app.inject({ method: 'PATCH', url: `/orgs/${organization.id}`, headers, payload: { name: 'Acme Inc', slug: 'acme-inc' } });
      expect(json(renamed)).toMatchObject({ id: organization.id, name: 'Acme Inc', slug: 'acme-inc' });
      expect((await ctx.app.inject({ method: 'PATCH', url: `/orgs/${organization.id}`, headers, payload: { slug: other.slug } })).statusCode).toBe(409);
      const { events } = await ctx.app.gatehouse.audit.page({ limit: 50 });
      const types = events.filter((event) => event.detail?.organizationId === organization.id).map((event) => event.type);
      expect(types).toEqual(['org.updated', 'org.member.added', 'org.created']);
    });
  });
});

describe.each(engines)('organizations with ORGANIZATIONS_SELF_SERVICE=true on $label', (engine) => {
  const ctx = useTestApp(engine, { env: { ORGANIZATIONS_SELF_SERVICE: 'true' } });

  it('lets any user with a confirmed e-mail create one, owning it, and refuses an unconfirmed one (403)', async () => {
    const confirmed = await ctx.createUser();
    const created = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: bearer(await ctx.tokenFor(confirmed.user)), payload: { name: 'Mine' } });
    expect(created.statusCode).toBe(201);
    const { id } = json<{ id: number }>(created);
    const members = await ctx.app.gatehouse.organizations.members({ userId: confirmed.user.id }, id);
    expect(members).toEqual([expect.objectContaining({ userId: confirmed.user.id, roles: ['OrgAdmin', 'OrgOwner'] })]);
    const unconfirmed = await ctx.createUser({ emailConfirmed: false });
    const refused = await ctx.app.inject({ method: 'POST', url: '/orgs', headers: bearer(await ctx.tokenFor(unconfirmed.user)), payload: { name: 'Not yet' } });
    expect(refused.statusCode).toBe(403);
    expect(await ctx.app.gatehouse.organizations.listForUser(unconfirmed.user.id)).toEqual([]);
  });
});
