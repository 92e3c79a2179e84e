/**
 * Organizations in the reference schema (docs/reference/graphql.md): `me { organizations
 * activeOrganization }` for tokens and cookies, and what a member's removal does to open sockets:
 * one opened with an access token closes 4403, one opened with a cookie goes on with the new
 * principal, the organization gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const APPLICATION = { by: 'application' } as const;
const ME = '{ me { organizations { id name roles } activeOrganization { id name } } }';
const ORIGIN = 'http://gatehouse.test';

describe.each(engines)('organizations in GraphQL on $engine', (engine) => {
  let ctx: TestApp;
  let url: string;

  beforeAll(async () => {
    ctx = await startTestApp(await engine.createDatabaseUrl(), { env: { PUBLIC_URL: ORIGIN } });
    const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    url = `${address.replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await ctx?.close();
    await engine.dropAll();
  });

  async function memberOfNewOrganization(name: string, roles = ['OrgAdmin']) {
    const owner = await ctx.createUser();
    const member = await ctx.createUser();
    const organization = await ctx.app.gatehouse.organizations.createOwnedBy(owner.user.id, { name }, APPLICATION);
    await ctx.app.gatehouse.organizations.addMember(organization.id, member.user.id, roles, APPLICATION);
    return { owner, member, organization };
  }

  async function tokenIn(account: { user: { email: string }; password: string }, organizationId: number | null) {
    const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: account.user.email, password: account.password, organizationId } });
    expect(response.statusCode).toBe(200);
    return json<{ accessToken: string }>(response).accessToken;
  }

  it('answers me { organizations activeOrganization } with the caller\'s organizations, roles and active one', async () => {
    const { member, organization } = await memberOfNewOrganization('Acme');
    const other = await ctx.app.gatehouse.organizations.createOwnedBy(member.user.id, { name: 'Side' }, APPLICATION);
    const ask = async (token: string) => json(await ctx.app.inject({ method: 'POST', url: '/graphql', headers: bearer(token), payload: { query: ME } }));
    expect(await ask(await tokenIn(member, organization.id))).toEqual({
      data: {
        me: {
          organizations: [
            { id: String(organization.id), name: 'Acme', roles: ['OrgAdmin'] },
            { id: String(other.id), name: 'Side', roles: ['OrgAdmin', 'OrgOwner'] },
          ],
          activeOrganization: { id: String(organization.id), name: 'Acme' },
        },
      },
    });
    const none = (await ask(await tokenIn(member, null))) as { data: { me: { activeOrganization: unknown } } };
    expect(none.data.me.activeOrganization).toBeNull();
  });

  it('closes a socket opened with an access token carrying the organization (4403) when the member is removed', async () => {
    const { owner, member, organization } = await memberOfNewOrganization('Closing');
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${await tokenIn(member, organization.id)}` } });
    await socket.connected;
    const before = await socket.execute(ME);
    expect(before.data).toMatchObject({ me: { activeOrganization: { id: String(organization.id) } } });
    await ctx.app.gatehouse.organizations.removeMember({ userId: owner.user.id }, organization.id, member.user.id);
    expect((await socket.closedWithin(5_000)).code).toBe(4403);
  });

  it('lets a cookie socket go on with the new principal: the organization gone once the member is removed', async () => {
    const { owner, member, organization } = await memberOfNewOrganization('Staying');
    const login = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: member.user.email, password: member.password } });
    const cookie = cookiePair(authSetCookie(login)!);
    const chosen = await ctx.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId: organization.id } });
    expect(chosen.statusCode).toBe(204);
    const socket = openSocket(url, { headers: { cookie, origin: ORIGIN } });
    await socket.connected;
    expect((await socket.execute(ME)).data).toMatchObject({ me: { activeOrganization: { id: String(organization.id) } } });
    await ctx.app.gatehouse.organizations.removeMember({ userId: owner.user.id }, organization.id, member.user.id);
    // The socket re-reads its session at the claims change; the next operation runs as the new principal.
    await expect.poll(async () => (await socket.execute(ME)).data, { timeout: 5_000, interval: 100 }).toEqual({ me: { organizations: [], activeOrganization: null } });
    expect(socket.isClosed()).toBe(false);
    await socket.dispose();
  });
});
