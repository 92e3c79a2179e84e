/**
 * An API that takes another issuer's tokens and turns Gatehouse's own sign-in off: in production
 * it needs no mail server, and it serves no registration, confirmation or reset routes.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, type GatehouseFeatures, serverOptions } from 'gatehouse-auth/fastify';

const production = {
  production: true,
  publicUrl: 'https://api.example.com',
  keyringSecret: 'a production secret of enough length for the ring',
  databaseUrl: 'sqlite::memory:',
};
const signInOff: GatehouseFeatures = { cookies: false, tokens: false, apiKeys: true, externalLogins: false, admin: false, twoFactor: false };

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

async function application(features: GatehouseFeatures): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(configFromSettings(production)));
  apps.push(app);
  await app.register(gatehouse, { settings: production, features });
  await app.ready();
  return app;
}

describe('Gatehouse with its own sign-in turned off', () => {
  it('starts in production without a mail server and serves no account routes', async () => {
    const app = await application(signInOff);
    for (const url of ['/account/register', '/account/confirm-email', '/account/forgot-password', '/account/reset-password', '/auth/token']) {
      const response = await app.inject({ method: 'POST', url, payload: {} });
      expect(response.statusCode, url).toBe(404);
    }
  });

  it.each([
    ['cookies', { ...signInOff, cookies: true }],
    ['tokens', { ...signInOff, tokens: true }],
  ])('still needs SMTP_URL in production with %s on, which send mail', async (_, features) => {
    await expect(application(features)).rejects.toThrow(/SMTP_URL must be set in production/);
  });
});
