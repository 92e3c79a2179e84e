/**
 * External token issuers for the tests of the bearer scheme over another issuer's tokens:
 *
 *   startLocalIssuer(): a node:http server of our own serving an OpenID discovery document and a
 *     JWKS (keys from jose's generateKeyPair), with switches a test flips: publish a new key,
 *     name another issuer in the discovery document, take the JWKS down, answer it with an error
 *     status or not at all. `hits` counts every request. `sign` makes tokens with
 *     any of its keys (published or not), valid unless a test changes a claim or header.
 *   startOidcIssuer(): a real oidc-provider issuing JWT access tokens by the client_credentials
 *     grant for one resource (the resourceIndicators feature), with extra claims from the test.
 *   startAppWith(appOptions, routes): a Gatehouse instance on a fresh SQLite database with the
 *     application's schemes, and routes of the test's own registered before it is ready.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/config.ts';
import Fastify from 'fastify';
import { gatehouse, type GatehouseOptions, serverOptions } from '../../src/http/app.ts';
import type { Logger } from 'pino';
import { createLogger } from '../../src/platform/logger.ts';
import type { Services } from '../../src/services.ts';
import { createStore } from '../../src/store/create-store.ts';
import { testEngines } from './databases.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

export const API_AUDIENCE = 'https://api.example.test';

export interface IssuerKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface LocalIssuer {
  /** The issuer and authority: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request made to it, as `METHOD path`. */
  readonly hits: string[];
  /** The key published first. */
  readonly key: IssuerKey;
  /** The keys the JWKS publishes. */
  published: IssuerKey[];
  /** The `issuer` the discovery document names; the issuer's own URL unless a test changes it. */
  discoveryIssuer: string;
  /** While true, requests for the JWKS are cut off (connection destroyed), as by a dead server. */
  jwksDown: boolean;
  /** While set, requests for the JWKS are answered with this status (a 500, a 503) and no key set. */
  jwksStatus: number | undefined;
  /** While true, requests for the JWKS are read and never answered (held until the client gives up). */
  jwksHangs: boolean;
  /** While true, requests for the discovery document are cut off. */
  discoveryDown: boolean;
  newKey(alg?: string): Promise<IssuerKey>;
  /** A token valid for `API_AUDIENCE` for ten minutes, signed by `key`; `claims`/`header` override. */
  sign(options?: { key?: IssuerKey; claims?: JWTPayload; header?: Record<string, unknown> }): Promise<string>;
  hitsOf(path: string): number;
  close(): Promise<void>;
}

let keyCounter = 0;

async function makeKey(alg: string): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${++keyCounter}`;
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function startLocalIssuer(): Promise<LocalIssuer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = await makeKey('ES256');
  const issuer: LocalIssuer = {
    url,
    hits: [],
    key,
    published: [key],
    discoveryIssuer: url,
    jwksDown: false,
    jwksStatus: undefined,
    jwksHangs: false,
    discoveryDown: false,
    newKey: (alg = 'ES256') => makeKey(alg),
    async sign({ key: signer = key, claims = {}, header = {} } = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: url, aud: API_AUDIENCE, sub: 'user-42', iat: now, nbf: now, exp: now + 600, ...claims };
      return new SignJWT(payload).setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'at+jwt', ...header }).sign(signer.privateKey);
    },
    hitsOf: (path) => issuer.hits.filter((hit) => hit === `GET ${path}`).length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server.on('request', (request, response) => {
    issuer.hits.push(`${request.method} ${request.url}`);
    if (request.url === '/.well-known/openid-configuration') {
      if (issuer.discoveryDown) return request.socket.destroy();
      response.setHeader('content-type', 'application/json');
      return response.end(JSON.stringify({ issuer: issuer.discoveryIssuer, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token` }));
    }
    if (request.url === '/jwks') {
      if (issuer.jwksDown) return request.socket.destroy();
      if (issuer.jwksHangs) return;
      if (issuer.jwksStatus !== undefined) {
        response.statusCode = issuer.jwksStatus;
        return response.end('{"error":"server_error"}');
      }
      response.setHeader('content-type', 'application/jwk-set+json');
      return response.end(JSON.stringify({ keys: issuer.published.map((published) => published.publicJwk) }));
    }
    response.statusCode = 404;
    response.end();
  });
  return issuer;
}

export interface OidcIssuer {
  readonly issuer: string;
  readonly clientId: string;
  /** Claims the provider adds to each access token it issues next (roles, a tenant, …). */
  extraClaims: Record<string, unknown>;
  /** An access token for `API_AUDIENCE` by the client_credentials grant, with these scopes. */
  clientCredentialsToken(scope?: string): Promise<string>;
  close(): Promise<void>;
}

/** The scopes the provider grants for `API_AUDIENCE`. */
const API_SCOPES = 'invoices:read invoices:write';

export async function startOidcIssuer(): Promise<OidcIssuer> {
  const clientId = 'billing-worker';
  const clientSecret = 'a client secret for the billing worker, long enough';
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = await Promise.all(['RS256', 'ES256'].map(async (alg) => {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    return { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: `oidc-${alg}` };
  }));
  const state: OidcIssuer = {
    issuer,
    clientId,
    extraClaims: {},
    async clientCredentialsToken(scope = API_SCOPES) {
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: API_AUDIENCE }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (response.status !== 200 || typeof body.access_token !== 'string') throw new Error(`the provider issued no token: ${response.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  // Loaded here, so that suites without it do not load it.
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: API_SCOPES }],
    scopes: ['openid', ...API_SCOPES.split(' ')],
    jwks: { keys },
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        // The API's tokens are JWTs signed ES256 (RFC 9068's `at+jwt`), valid for ten minutes.
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== API_AUDIENCE) throw new Error('unknown resource');
          return { scope: API_SCOPES, audience: API_AUDIENCE, accessTokenTTL: 600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    extraTokenClaims: () => state.extraClaims,
    ttl: { ClientCredentials: 600 },
    cookies: { keys: ['a cookie key for the test provider'] },
  } as never);
  (provider as unknown as { on(event: string, listener: () => void): void }).on('server_error', () => undefined);
  server.on('request', (provider as unknown as { callback(): (req: unknown, res: unknown) => void }).callback());
  return state;
}

export interface AppUnderTest {
  readonly app: FastifyInstance;
  readonly services: Services;
  close(): Promise<void>;
}

/**
 * A Gatehouse instance with `appOptions`; `routes` adds the test's own endpoints before it is
 * ready; it logs to `logger` (nowhere unless given).
 */
export async function startAppWith(
  appOptions: Omit<GatehouseOptions, 'config' | 'store'>,
  routes: (app: FastifyInstance) => void = () => undefined,
  logger: Logger = createLogger({ level: 'silent' }),
): Promise<AppUnderTest> {
  const [sqlite] = await testEngines();
  const databaseUrl = await sqlite!.createDatabaseUrl();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl });
  const store = await createStore(databaseUrl);
  await store.migrate();
  let app: FastifyInstance;
  try {
    app = Fastify(serverOptions(config, logger));
    await app.register(gatehouse, { config, store, migrate: false, ...appOptions });
    // The caller's name, as the reference service's `/me` answers it.
    app.get('/me', (request, reply) => reply.type('text/plain; charset=utf-8').send(request.user.name ?? ''));
    routes(app);
    await app.ready();
  } catch (error) {
    await store.close();
    await sqlite!.dropAll();
    throw error;
  }
  return {
    app,
    services: gatehouseServices(app.gatehouse),
    async close() {
      await app.close();
      await store.close();
      await sqlite!.dropAll();
    },
  };
}
