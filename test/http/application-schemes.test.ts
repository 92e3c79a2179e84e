/**
 * An application's own authentication schemes, written with the public `gatehouse-auth` exports
 * only and registered through `AppOptions.schemes`: an HMAC-signed request header scheme that
 * routes name (or that becomes the default scheme), an external bearer scheme beside Gatehouse's
 * own under another name, and configuration mistakes (an unknown default scheme, a name
 * registered twice) that stop the start.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type Challenge,
  Claim,
  ClaimsIdentity,
  ClaimsPrincipal,
  externalJwtBearer,
  singleHeader,
} from 'gatehouse-auth';
import { API_AUDIENCE, type AppUnderTest, type LocalIssuer, startAppWith, startLocalIssuer } from '../helpers/external-issuer.ts';

/**
 * `X-Signature: <client>:<unix time>:<hex HMAC-SHA256 of "<client>:<unix time>">`, fresh within
 * five minutes: what a team's machine-to-machine callers already send.
 */
class HmacSignatureHandler implements AuthenticationHandler {
  readonly scheme = 'Hmac';

  constructor(private readonly secrets: ReadonlyMap<string, string>, private readonly now = () => Date.now()) {}

  authenticate(request: AuthenticationRequest): AuthenticateResult {
    const header = singleHeader(request, 'x-signature');
    if (header === undefined) return AuthenticateResult.noResult();
    const [client, time, signature, ...rest] = (header ?? '').split(':');
    const secret = client === undefined ? undefined : this.secrets.get(client);
    if (header === null || rest.length > 0 || secret === undefined || !/^\d{1,12}$/.test(time ?? '') || !/^[0-9a-f]{64}$/.test(signature ?? '')) {
      return AuthenticateResult.fail(this.scheme, 'The signature is malformed.');
    }
    const expected = createHmac('sha256', secret).update(`${client}:${time}`).digest();
    if (!timingSafeEqual(expected, Buffer.from(signature!, 'hex'))) return AuthenticateResult.fail(this.scheme, 'The signature is invalid.');
    if (Math.abs(this.now() / 1000 - Number(time)) > 300) return AuthenticateResult.fail(this.scheme, 'The signature is stale.');
    const identity = new ClaimsIdentity([new Claim('sub', client!), new Claim('name', client!), new Claim('role', 'machine')], this.scheme);
    return AuthenticateResult.success(this.scheme, new ClaimsPrincipal([identity]));
  }

  challenge(result: AuthenticateResult): Challenge {
    return result.kind === 'fail' ? { wwwAuthenticate: 'Hmac error="invalid_signature"', detail: result.message } : { wwwAuthenticate: 'Hmac' };
  }
}

const SECRETS = new Map([['ledger', 'the ledger service secret, long and random enough']]);

function signature(client: string, secret: string, time = Math.floor(Date.now() / 1000)): string {
  return `${client}:${time}:${createHmac('sha256', secret).update(`${client}:${time}`).digest('hex')}`;
}

const apps: AppUnderTest[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function gatehouse(...args: Parameters<typeof startAppWith>): Promise<AppUnderTest> {
  const app = await startAppWith(...args);
  apps.push(app);
  return app;
}

describe('an HMAC-signed request scheme of the application', () => {
  const routes = (app: AppUnderTest['app']) => {
    app.get('/ledger/entries', { config: { authorization: { authorize: [{ schemes: ['Hmac'], roles: ['machine'] }] } } }, async (request) => ({
      caller: request.user.name,
      scheme: request.user.identity?.authenticationType,
    }));
  };

  it('authenticates the routes that name it, with its own claims', async () => {
    const { app } = await gatehouse({ schemes: [new HmacSignatureHandler(SECRETS)] }, routes);
    const response = await app.inject({ url: '/ledger/entries', headers: { 'x-signature': signature('ledger', SECRETS.get('ledger')!) } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ caller: 'ledger', scheme: 'Hmac' });
  });

  it('answers its own challenge for a bad or missing signature, never echoing it', async () => {
    const { app } = await gatehouse({ schemes: [new HmacSignatureHandler(SECRETS)] }, routes);
    const forged = signature('ledger', 'a guessed secret');
    const bad = await app.inject({ url: '/ledger/entries', headers: { 'x-signature': forged } });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toBe('Hmac error="invalid_signature"');
    expect(bad.json()).toMatchObject({ detail: 'The signature is invalid.' });
    expect(bad.body).not.toContain(forged.split(':')[2]);
    const stale = await app.inject({ url: '/ledger/entries', headers: { 'x-signature': signature('ledger', SECRETS.get('ledger')!, 1_000_000) } });
    expect(stale.json()).toMatchObject({ detail: 'The signature is stale.' });
    const none = await app.inject({ url: '/ledger/entries' });
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Hmac');
  });

  it('is not consulted where routes do not name it, unless it is the default scheme', async () => {
    const headers = { 'x-signature': signature('ledger', SECRETS.get('ledger')!) };
    const beside = await gatehouse({ schemes: [new HmacSignatureHandler(SECRETS)] });
    expect((await beside.app.inject({ url: '/me', headers })).statusCode).toBe(401);
    const byDefault = await gatehouse({ schemes: [new HmacSignatureHandler(SECRETS)], defaultScheme: 'Hmac' });
    const response = await byDefault.app.inject({ url: '/me', headers });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('ledger');
  });

  it('stops the start for an unknown default scheme, or a name registered twice', async () => {
    await expect(startAppWith({ defaultScheme: 'Hmak' })).rejects.toThrow('No authentication scheme is registered as "Hmak".');
    await expect(startAppWith({ schemes: [new HmacSignatureHandler(SECRETS), new HmacSignatureHandler(SECRETS)] })).rejects.toThrow(
      'Authentication scheme "Hmac" is registered twice.',
    );
  });
});

describe('an external bearer scheme beside Gatehouse\'s own', () => {
  let issuer: LocalIssuer;
  beforeAll(async () => {
    issuer = await startLocalIssuer();
  });
  afterAll(() => issuer.close());

  it('takes the partner\'s tokens where routes name it, while Gatehouse\'s own tokens keep the default Bearer scheme', async () => {
    const partner = externalJwtBearer({ scheme: 'Partner', authority: issuer.url, audience: API_AUDIENCE });
    const gatehouseApp = await gatehouse({ schemes: [partner] }, (app) => {
      app.get('/partner/orders', { config: { authorization: { authorize: [{ schemes: ['Partner'] }] } } }, async (request) => ({
        subject: request.user.subject,
        scheme: request.user.identity?.authenticationType,
      }));
    });
    const { app, services } = gatehouseApp;
    const partnerToken = await issuer.sign({ claims: { sub: 'partner-7' } });
    const orders = await app.inject({ url: '/partner/orders', headers: { authorization: `Bearer ${partnerToken}` } });
    expect(orders.statusCode).toBe(200);
    expect(orders.json()).toEqual({ subject: 'partner-7', scheme: 'Partner' });
    // The default selection sends Bearer headers to Gatehouse's own scheme, which refuses the partner's token.
    expect((await app.inject({ url: '/me', headers: { authorization: `Bearer ${partnerToken}` } })).statusCode).toBe(401);
    const user = await services.users.create({ email: 'own@example.com', userName: 'own-user', emailConfirmed: true, password: 'correct horse battery staple' });
    const own = (await services.accessTokens.issue(user)).token;
    const me = await app.inject({ url: '/me', headers: { authorization: `Bearer ${own}` } });
    expect(me.statusCode).toBe(200);
    expect(me.body).toBe('own-user');
    expect((await app.inject({ url: '/partner/orders', headers: { authorization: `Bearer ${own}` } })).statusCode).toBe(401);
  });
});
