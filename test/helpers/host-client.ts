/**
 * What the library's host suites (test/express, test/hono, test/nestjs) share: a client of an
 * application listening on one host, the two people they sign in, and the scenarios every host
 * must pass alike (Gatehouse's own endpoints, a role taken away at once).
 */
import { expect } from 'vitest';
import type { Gatehouse } from 'gatehouse-auth';

export const PASSWORD = 'correct horse battery staple';

export interface HostClient {
  /** `GET path`, with the bearer token when one is given. */
  get(path: string, token?: string): Promise<Response>;
  /** `POST /auth/token` with the password; answers the access token (200 expected). */
  signIn(email: string): Promise<string>;
}

/** A client of the application at `url()` (read at each request: the suites learn it once listening). */
export function hostClient(url: () => string): HostClient {
  return {
    get: (path, token) => fetch(`${url()}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    signIn: async (email) => {
      const response = await fetch(`${url()}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      expect(response.status).toBe(200);
      return ((await response.json()) as { accessToken: string }).accessToken;
    },
  };
}

/** ada, in role `Premium`, and bob, in none, made through the use cases and signed in: their access tokens. */
export async function adaAndBob(gatehouse: Gatehouse, client: HostClient): Promise<{ ada: string; bob: string }> {
  const premium = await gatehouse.users.create({ email: 'ada@example.com', userName: 'ada', password: PASSWORD, emailConfirmed: true });
  await gatehouse.users.addRole(premium.id, 'Premium');
  await gatehouse.users.create({ email: 'bob@example.com', userName: 'bob', password: PASSWORD, emailConfirmed: true });
  return { ada: await client.signIn('ada@example.com'), bob: await client.signIn('bob@example.com') };
}

/** Gatehouse's own endpoints on the host: the JWKS, the profile of `token` (ada's), and a bad sign-in body as 400 problem+json. */
export async function expectGatehouseEndpoints(client: HostClient, url: string, token: string): Promise<void> {
  expect((await client.get('/.well-known/jwks.json')).status).toBe(200);
  const profile = await client.get('/account/profile', token);
  expect(profile.status).toBe(200);
  expect(((await profile.json()) as { email: string }).email).toBe('ada@example.com');
  const invalid = await fetch(`${url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com' }) });
  expect(invalid.status).toBe(400);
  expect(invalid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

/** A role taken away is refused at once: carol's token of before, 200 at `path` (needing `Premium`), is 401 the next request. */
export async function expectRoleTakenAwayAtOnce(gatehouse: Gatehouse, client: HostClient, path: string): Promise<void> {
  const carol = await gatehouse.users.create({ email: 'carol@example.com', userName: 'carol', password: PASSWORD, emailConfirmed: true });
  await gatehouse.users.addRole(carol.id, 'Premium');
  const token = await client.signIn('carol@example.com');
  expect((await client.get(path, token)).status).toBe(200);
  await gatehouse.users.removeRole(carol.id, 'Premium');
  expect((await client.get(path, token)).status).toBe(401);
}

/** `path` under the policy `PremiumOnly`: 200 for ada, 403 problem+json for bob, 401 for no one. */
export async function expectPremiumPolicy(client: HostClient, path: string, { ada, bob }: { ada: string; bob: string }): Promise<void> {
  expect((await client.get(path, ada)).status).toBe(200);
  const refused = await client.get(path, bob);
  expect(refused.status).toBe(403);
  expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(((await refused.json()) as { status: number }).status).toBe(403);
  expect((await client.get(path)).status).toBe(401);
}
