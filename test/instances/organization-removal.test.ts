/**
 * A member removed on one instance, seen on another (docs/organizations.md): two instances on one
 * database, no Redis (each learns of the other's changes by polling the store). On A, the removed
 * member's access token carrying the organization — remembered there since its first use — is
 * refused within 5 seconds and a socket opened with it closes 4403; the member's cookie session
 * goes on without the organization at once (every cookie request reads the store), and a cookie
 * socket goes on with the new principal. Deleting the organization on B does the same to every
 * member's token on A.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const PUBLIC_URL = 'http://gatehouse.test';
const APPLICATION = { by: 'application' } as const;
const ACTIVE = '{ me { activeOrganization { id } } }';

describe.each(engines)('an organization change made on another instance, on $engine', (engine) => {
  let a: TestApp;
  let b: TestApp;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    // Sequentially: the first creates the key ring, the second opens it.
    a = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    b = await startTestApp(databaseUrl, { env: { PUBLIC_URL } });
    url = `${(await a.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await engine.dropAll();
  });

  async function memberOfNewOrganization() {
    const owner = await a.createUser();
    const member = await a.createUser();
    const organization = await a.app.gatehouse.organizations.createOwnedBy(owner.user.id, { name: 'Tenant' }, APPLICATION);
    await a.app.gatehouse.organizations.addMember(organization.id, member.user.id, ['OrgAdmin'], APPLICATION);
    const token = json<{ accessToken: string }>(
      await a.app.inject({ method: 'POST', url: '/auth/token', payload: { email: member.user.email, password: member.password, organizationId: organization.id } }),
    ).accessToken;
    const login = await a.app.inject({ method: 'POST', url: '/account/login', payload: { email: member.user.email, password: member.password } });
    const cookie = cookiePair(authSetCookie(login)!);
    return { owner, member, organization, token, cookie, settings: `/orgs/${organization.id}/settings` };
  }

  /** Resolves once `request` answers `status` on A, failing after the contract's 5 seconds. */
  async function withinPropagation(request: () => Promise<number>, status: number): Promise<void> {
    await expect.poll(request, { timeout: PROPAGATION_MS, interval: 50 }).toBe(status);
  }

  it('refuses the removed member\'s token on A within 5 s, closes its socket 4403, and re-reads the cookie session and its socket', async () => {
    const { owner, member, organization, token, cookie, settings } = await memberOfNewOrganization();
    // A knows the token (verified and remembered) and the cookie session has the organization active.
    expect((await a.app.inject({ url: settings, headers: bearer(token) })).statusCode).toBe(200);
    expect((await a.app.inject({ method: 'POST', url: '/account/organizations/active', headers: { cookie }, payload: { organizationId: organization.id } })).statusCode).toBe(204);
    expect((await a.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(200);
    const tokenSocket = openSocket(url, { connectionParams: { authorization: `Bearer ${token}` } });
    const cookieSocket = openSocket(url, { headers: { cookie, origin: PUBLIC_URL } });
    for (const socket of [tokenSocket, cookieSocket]) {
      expect(await socket.execute(ACTIVE)).toEqual({ data: { me: { activeOrganization: { id: String(organization.id) } } } });
    }

    const ownerToken = await b.tokenFor((await b.app.gatehouse.users.findById(owner.user.id))!);
    const removed = await b.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${member.user.id}`, headers: bearer(ownerToken) });
    expect(removed.statusCode).toBe(204);

    // The cookie session reads the store at each request: at once.
    expect((await a.app.inject({ url: settings, headers: { cookie } })).statusCode).toBe(403);
    expect((await tokenSocket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    await withinPropagation(async () => (await a.app.inject({ url: settings, headers: bearer(token) })).statusCode, 401);
    await expect.poll(async () => (await cookieSocket.execute(ACTIVE)).data, { timeout: PROPAGATION_MS, interval: 50 }).toEqual({ me: { activeOrganization: null } });
    expect(cookieSocket.isClosed()).toBe(false);
    await cookieSocket.dispose();
  });

  it('refuses every member\'s token carrying the organization on A within 5 s once B deletes it', async () => {
    const { owner, token, settings } = await memberOfNewOrganization();
    expect((await a.app.inject({ url: settings, headers: bearer(token) })).statusCode).toBe(200);
    const ownerToken = await b.tokenFor((await b.app.gatehouse.users.findById(owner.user.id))!);
    const organizationId = Number(settings.split('/')[2]);
    expect((await b.app.inject({ method: 'DELETE', url: `/orgs/${organizationId}`, headers: bearer(ownerToken) })).statusCode).toBe(204);
    await withinPropagation(async () => (await a.app.inject({ url: '/me', headers: bearer(token) })).statusCode, 401);
  });
});
