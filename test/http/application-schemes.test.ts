/**
 * An application's own authentication schemes, written with the public `gatehouse-auth` exports
 * only and registered through `AppOptions.schemes`: an HMAC-signed request header scheme that
 * routes name (or that becomes the default scheme), whose declared header is kept out of the log
 * and makes answers `no-store`; a scheme that decides by the request's method, path and query;
 * a `forwardDefaultSelector` that picks the scheme of routes naming none; an external bearer
 * scheme beside Gatehouse's own under another name; and configuration mistakes (an unknown
 * default scheme, a name registered twice) that stop the start.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type Challenge,
  Claim,
  ClaimsIdentity,
  ClaimsPrincipal,
  type CredentialSources,
  externalJwtBearer,
  requestPath,
  singleHeader,
} from 'gatehouse-auth';
import { createLogger } from 'gatehouse-auth/fastify';
import { API_AUDIENCE, type AppUnderTest, type LocalIssuer, startAppWith, startLocalIssuer } from '../helpers/external-issuer.ts';

/**
 * `X-Signature: <client>:<unix time>:<hex HMAC-SHA256 of "<client>:<unix time>">`, fresh within
 * five minutes: what a team's machine-to-machine callers already send.
 */
class HmacSignatureHandler implements AuthenticationHandler {
  readonly scheme = 'Hmac';
  readonly credentials: CredentialSources = { headers: ['x-signature'] };

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

describe('the credentials a scheme declares', () => {
  /** A Gatehouse whose log lines are kept, with an endpoint that logs its request's headers (as a careless application might). */
  async function logged(scheme: AuthenticationHandler) {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const started = await gatehouse(
      { schemes: [scheme] },
      (app) => {
        app.get('/ledger/status', { config: { authorization: { allowAnonymous: true } } }, async (request) => {
          request.log.info({ headers: request.headers }, 'ledger status asked');
          return { up: true };
        });
      },
      createLogger({ level: 'info', destination, schemes: [scheme] }),
    );
    return { ...started, log: () => lines.join('') };
  }

  it('keeps its header out of the log and its answers out of caches, on an endpoint that needs no caller', async () => {
    const { app, log } = await logged(new HmacSignatureHandler(SECRETS));
    const signed = signature('ledger', SECRETS.get('ledger')!);
    const response = await app.inject({ url: '/ledger/status', headers: { 'x-signature': signed, 'x-trace': 'trace-canary' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(log()).toContain('ledger status asked');
    // The capture holds the headers it was given: an undeclared one shows, the declared one does not.
    expect(log()).toContain('trace-canary');
    expect(log()).not.toContain(signed);
    expect(log()).toContain('"x-signature":"[redacted]"');
    // Without the header, the same public answer may be stored.
    expect((await app.inject({ url: '/ledger/status' })).headers['cache-control']).toBeUndefined();
  });

  it('is what decides: a header no scheme declares is logged and stored like any other', async () => {
    const undeclared = Object.assign(new HmacSignatureHandler(SECRETS), { credentials: undefined });
    const { app, log } = await logged(undeclared);
    const signed = signature('ledger', SECRETS.get('ledger')!);
    const response = await app.inject({ url: '/ledger/status', headers: { 'x-signature': signed } });
    expect(response.headers['cache-control']).toBeUndefined();
    expect(log()).toContain(signed);
  });
});

/**
 * `X-Report-Key: <key>`, good for reading reports only: a `GET` under `/reports/`, for the one
 * year the query names (`?year=2025`), which becomes its `year` claim.
 */
class ReportReaderHandler implements AuthenticationHandler {
  readonly scheme = 'ReportReader';
  readonly credentials: CredentialSources = { headers: ['x-report-key'] };

  authenticate(request: AuthenticationRequest): AuthenticateResult {
    const key = singleHeader(request, 'x-report-key');
    if (key === undefined) return AuthenticateResult.noResult();
    if (key !== 'report-key-2025') return AuthenticateResult.fail(this.scheme, 'The key is unknown.');
    if (request.method !== 'GET' || !requestPath(request)?.startsWith('/reports/')) return AuthenticateResult.fail(this.scheme, 'The key reads reports only.');
    const year = request.query?.year;
    if (year !== '2025') return AuthenticateResult.fail(this.scheme, 'The key reads the reports of 2025 only.');
    const identity = new ClaimsIdentity([new Claim('sub', 'report-reader'), new Claim('year', year)], this.scheme);
    return AuthenticateResult.success(this.scheme, new ClaimsPrincipal([identity]));
  }

  challenge(result: AuthenticateResult): Challenge {
    return { wwwAuthenticate: 'ReportKey', ...(result.kind === 'fail' ? { detail: result.message } : {}) };
  }
}

describe('a scheme that reads the request\'s method, path and query', () => {
  const routes = (app: AppUnderTest['app']) => {
    const config = { authorization: { authorize: [{ schemes: ['ReportReader'] }] } };
    app.get('/reports/annual', { config }, async (request) => ({ year: request.user.findFirst('year')?.value }));
    app.post('/reports/annual', { config }, async () => ({ written: true }));
    app.get('/invoices', { config }, async () => ({ invoices: [] }));
  };

  it('decides by them', async () => {
    const { app } = await gatehouse({ schemes: [new ReportReaderHandler()] }, routes);
    const headers = { 'x-report-key': 'report-key-2025' };
    const read = await app.inject({ url: '/reports/annual?year=2025', headers });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ year: '2025' });
    const refused = async (method: 'GET' | 'POST', url: string, detail: string) => {
      const response = await app.inject({ method, url, headers, ...(method === 'POST' ? { payload: {} } : {}) });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json()).toMatchObject({ detail });
    };
    await refused('POST', '/reports/annual?year=2025', 'The key reads reports only.');
    await refused('GET', '/invoices?year=2025', 'The key reads reports only.');
    await refused('GET', '/reports/annual?year=2024', 'The key reads the reports of 2025 only.');
    await refused('GET', '/reports/annual', 'The key reads the reports of 2025 only.');
  });
});

describe('a forwardDefaultSelector of the application', () => {
  const routes = (app: AppUnderTest['app']) => {
    app.get('/ledger/entries', async (request) => ({ caller: request.user.name, scheme: request.user.identity?.authenticationType }));
  };
  /** The ledger's paths take signatures; for every other request, the default decides. */
  const ledgerSignatures = (request: AuthenticationRequest) => (requestPath(request)?.startsWith('/ledger/') ? 'Hmac' : undefined);

  it('picks the scheme of routes that name none, and leaves the rest to the default', async () => {
    const { app, services } = await gatehouse({ schemes: [new HmacSignatureHandler(SECRETS)], forwardDefaultSelector: ledgerSignatures }, routes);
    const signed = { 'x-signature': signature('ledger', SECRETS.get('ledger')!) };
    const entries = await app.inject({ url: '/ledger/entries?page=2', headers: signed });
    expect(entries.statusCode).toBe(200);
    expect(entries.json()).toEqual({ caller: 'ledger', scheme: 'Hmac' });
    // Elsewhere the request's shape decides: a signature is no credential there, a token is.
    expect((await app.inject({ url: '/me', headers: signed })).statusCode).toBe(401);
    const user = await services.users.create({ email: 'selector@example.com', userName: 'selector-user', emailConfirmed: true, password: 'correct horse battery staple' });
    const token = (await services.accessTokens.issue(user)).token;
    expect((await app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } })).body).toBe('selector-user');
    // On the ledger's paths the selector's scheme judges, whatever else is sent.
    const withToken = await app.inject({ url: '/ledger/entries', headers: { authorization: `Bearer ${token}` } });
    expect(withToken.statusCode).toBe(401);
    expect(withToken.headers['www-authenticate']).toBe('Hmac');
  });

  it('beats defaultScheme where it chooses, and yields to it where it does not', async () => {
    const { app } = await gatehouse(
      { schemes: [new HmacSignatureHandler(SECRETS), new ReportReaderHandler()], defaultScheme: 'ReportReader', forwardDefaultSelector: ledgerSignatures },
      routes,
    );
    expect((await app.inject({ url: '/ledger/entries', headers: { 'x-signature': signature('ledger', SECRETS.get('ledger')!) } })).statusCode).toBe(200);
    const me = await app.inject({ url: '/me' });
    expect(me.statusCode).toBe(401);
    expect(me.headers['www-authenticate']).toBe('ReportKey');
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
