/**
 * Gatehouse built without a framework (src/hosting/gatehouse-instance.ts): the instance every
 * host serves. Its endpoints answer through its Web-standard handler, a request to an
 * application's own endpoint is authorized with its policies, and closing it closes what it opened.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointAuthorization } from '../../src/endpoints/authorize-endpoint.ts';
import { createGatehouseInstance, type GatehouseInstance } from '../../src/hosting/gatehouse-instance.ts';
import { type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName } from '../../src/security/authorization/index.ts';
import { createStore } from '../../src/store/create-store.ts';

const PASSWORD = 'correct horse battery staple';
const instances: GatehouseInstance[] = [];

afterEach(async () => {
  for (const instance of instances.splice(0)) await instance.close();
});

async function started(options: Parameters<typeof createGatehouseInstance>[0] = {}): Promise<GatehouseInstance> {
  const instance = await createGatehouseInstance(
    { settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' }, ...options },
    { logger: pino({ level: 'silent' }) },
  );
  instances.push(instance);
  await instance.start();
  return instance;
}

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function signIn(instance: GatehouseInstance, email: string): Promise<string> {
  const response = await instance.fetch(new Request('http://localhost:3000/auth/token', json({ email, password: PASSWORD })), { ip: '127.0.0.1' });
  expect(response.status).toBe(200);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

describe('a Gatehouse instance', () => {
  it("serves its endpoints through fetch: a sign-in, the JWKS, the caller's profile, and 401 without a token", async () => {
    const instance = await started();
    await instance.gatehouse.users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
    const token = await signIn(instance, 'ada@example.com');
    const jwks = await instance.fetch(new Request('http://localhost:3000/.well-known/jwks.json'));
    expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
    const profile = await instance.fetch(new Request('http://localhost:3000/account/profile', { headers: { authorization: `Bearer ${token}` } }));
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { email: string }).email).toBe('ada@example.com');
    const anonymous = await instance.fetch(new Request('http://localhost:3000/account/profile'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
  });

  it("authorizes an application's endpoint with its policies: success for a member, forbid for another, and a role taken away counts at once", async () => {
    const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
    const instance = await started({ policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy> });
    const ada = await instance.gatehouse.users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
    await instance.gatehouse.users.create({ email: 'bob@example.com', password: PASSWORD, emailConfirmed: true });
    await instance.gatehouse.users.addRole(ada.id, 'Premium');
    const reports = endpointAuthorization(instance.authorization, { authorization: { authorize: [{ policy: 'PremiumOnly' }] } });
    const asAda = { headers: { authorization: `Bearer ${await signIn(instance, 'ada@example.com')}` } };
    const asBob = { headers: { authorization: `Bearer ${await signIn(instance, 'bob@example.com')}` } };
    expect((await reports.authorize!(asAda)).outcome.kind).toBe('success');
    expect(reports.recognize!(asAda)?.outcome.kind).toBe('success');
    expect((await reports.authorize!(asBob)).outcome.kind).toBe('forbid');
    await instance.gatehouse.users.removeRole(ada.id, 'Premium');
    expect(reports.recognize!(asAda)).toBeUndefined();
    expect((await reports.authorize!(asAda)).outcome.kind).toBe('challenge');
  });

  it('closes the store it opened', async () => {
    const instance = await started();
    await instance.close();
    instances.splice(instances.indexOf(instance), 1);
    await expect(instance.gatehouse.users.list()).rejects.toThrow();
  });

  it("leaves an application's own store open", async () => {
    const store = await createStore('sqlite::memory:');
    const instance = await started({ store });
    await instance.gatehouse.users.create({ email: 'ada@example.com', password: PASSWORD, emailConfirmed: true });
    await instance.close();
    instances.splice(instances.indexOf(instance), 1);
    expect((await store.users.list()).map((user) => user.email)).toEqual(['ada@example.com']);
    await store.close();
  });
});
