/**
 * External sign-in authenticates to the provider's token endpoint the way the provider's
 * discovery document advertises (docs/external-login.md): `client_secret_basic` when it is listed
 * (RFC 6749 section 2.3.1 requires every provider to support it), `client_secret_post` when only
 * that is, and Post after a refusal of Basic by a provider that lists both. Against a real
 * provider on loopback (oidc-provider) that allows only Basic, one that allows only Post, one
 * that lists every method, and one that lists every method but refuses Basic for its client, the
 * whole sign-in works — redirect, provider login, callback, session — and the provider saw the
 * method it allows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { type ClientAuthentication, startTestProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';

const providers: Array<{ label: string; authentication: ClientAuthentication; used: Array<'basic' | 'body'> }> = [
  { label: 'allows only client_secret_basic', authentication: { only: 'client_secret_basic' }, used: ['basic'] },
  { label: 'allows only client_secret_post', authentication: { only: 'client_secret_post' }, used: ['body'] },
  { label: 'lists every method', authentication: {}, used: ['basic'] },
  // Basic first, as listed; refused for this client, the code is exchanged with Post.
  { label: 'lists every method but refuses Basic for its client', authentication: { refusesBasic: true }, used: ['basic', 'body'] },
];

describe.each(providers)('external sign-in with a provider that $label', ({ authentication, used }) => {
  let provider: TestProvider;
  let instance: TestApp;

  beforeAll(async () => {
    provider = await startTestProvider(`${PUBLIC_URL}/signin-acme`, authentication);
    instance = await startTestApp(await sqlite!.createDatabaseUrl(), {
      env: {
        PUBLIC_URL,
        OIDC_ACME_ISSUER: provider.issuer,
        OIDC_ACME_CLIENT_ID: provider.clientId,
        OIDC_ACME_CLIENT_SECRET: provider.clientSecret,
        OIDC_ACME_TRUST_EMAIL: 'true',
      },
    });
  });
  afterAll(async () => {
    await instance?.close();
    await provider?.close();
    await sqlite!.dropAll();
  });

  it('signs a new user in through the whole flow, authenticating as the provider allows', async () => {
    const email = `person-${used.join('-')}@example.com`;
    provider.accounts.set('person', { email, emailVerified: true, name: 'A Person' });
    const start = await instance.app.inject({ url: '/account/external-login/acme?returnUrl=%2Faccount%2Fprofile' });
    expect(start.statusCode).toBe(302);
    const correlation = cookiePair(authSetCookie(start, 'gh.oidc')!);
    const back = await provider.authorize(String(start.headers.location), 'person');

    const done = await instance.app.inject({ url: `${back.pathname}${back.search}`, headers: { cookie: correlation } });
    expect(done.statusCode, done.body).toBe(302);
    expect(done.headers.location).toBe('/account/profile');
    const auth = cookiePair(authSetCookie(done, 'gh.auth')!);
    const profile = json<{ email: string; logins: { provider: string }[] }>(await instance.app.inject({ url: '/account/profile', headers: { cookie: auth } }));
    expect(profile).toMatchObject({ email, logins: [{ provider: 'acme' }] });
    expect(provider.tokenRequests).toEqual(used);
  });
});
