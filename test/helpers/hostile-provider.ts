/**
 * An OpenID provider under the attacker's control, on loopback: a plain HTTP server that speaks
 * just enough of OpenID Connect (discovery, JWKS, authorization, token, user info) to take the
 * service through its flow, and then answers however the test says — ID tokens forged,
 * unsigned, signed by an unpublished key, addressed to others; endpoints that fail, hang or
 * reset the connection. It counts the requests it gets, so tests can prove what the service
 * did not send.
 *
 *   const provider = await startHostileProvider('http://gatehouse.test/signin-evil');
 *   provider.idToken = (claims) => provider.sign(claims, { key: provider.unpublishedKey });
 *   const back = await provider.authorize(startLocation);   // the callback URL, not yet followed
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

type PrivateKey = CryptoKey;

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: PrivateKey;
  readonly publicJwk: Record<string, unknown>;
}

/** How an endpoint behaves: answers, answers 500, never answers, or drops the connection. */
export type EndpointBehaviour = 'answer' | 'fail' | 'hang' | 'reset';

export interface HostileProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Requests received, by endpoint. */
  readonly requests: { discovery: number; jwks: number; authorize: number; token: number; userinfo: number };
  behaviour: { discovery: EndpointBehaviour; jwks: EndpointBehaviour; token: EndpointBehaviour };
  /** `id_token_signing_alg_values_supported` of the discovery document. */
  algorithms: string[];
  /** Replaces the discovery document's `jwks_uri` when set. */
  jwksUri: string | undefined;
  /** Replaces the discovery document's `issuer` when set (a provider speaking for another). */
  claimedIssuer: string | undefined;
  /** The keys the JWKS publishes; the first signs by default. */
  publishedKeys: SigningKey[];
  /** A key of the same kind whose public half is never published. */
  readonly unpublishedKey: SigningKey;
  /** The subject and e-mail the next tokens assert. */
  account: { sub: string; email?: string; email_verified?: boolean };
  /** Makes the ID token from the claims an honest provider would send; by default signs them with the first published key. */
  idToken: (claims: JWTPayload) => string | Promise<string>;
  /** Signs with `key` (default: the first published) under `kid`, or with the client secret for an `HS*` algorithm. */
  sign(claims: JWTPayload, options?: { key?: SigningKey; kid?: string; alg?: string }): Promise<string>;
  /** A new key published at the front of the JWKS (an honest provider rotating its keys). */
  rotateKeys(): Promise<SigningKey>;
  /** Takes the authorization URL the service redirected to; the provider's redirect back, not yet followed. */
  authorize(authorizationUrl: string, extra?: Record<string, string>): Promise<URL>;
  close(): Promise<void>;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startHostileProvider(redirectUri: string): Promise<HostileProvider> {
  const hanging = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const codes = new Map<string, { nonce: string | null }>();
  const server = createServer();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keyCount = 0;
  const firstKey = await newSigningKey(`key-${++keyCount}`);

  const provider: HostileProvider = {
    issuer,
    clientId: 'gatehouse',
    clientSecret: 'the client secret the hostile provider shares, long enough',
    requests: { discovery: 0, jwks: 0, authorize: 0, token: 0, userinfo: 0 },
    behaviour: { discovery: 'answer', jwks: 'answer', token: 'answer' },
    algorithms: ['RS256'],
    jwksUri: undefined,
    claimedIssuer: undefined,
    publishedKeys: [firstKey],
    unpublishedKey: await newSigningKey(firstKey.kid),
    account: { sub: 'someone', email: 'someone@example.com', email_verified: true },
    idToken: (claims) => provider.sign(claims),
    async sign(claims, options = {}) {
      const alg = options.alg ?? 'RS256';
      // HMAC-signed ID tokens are keyed by the client secret (OpenID Connect Core 10.1).
      if (alg.startsWith('HS')) return new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(provider.clientSecret));
      const key = options.key ?? provider.publishedKeys[0]!;
      return new SignJWT(claims).setProtectedHeader({ alg, kid: options.kid ?? key.kid }).sign(key.privateKey);
    },
    async rotateKeys() {
      const key = await newSigningKey(`key-${++keyCount}`);
      provider.publishedKeys = [key, ...provider.publishedKeys];
      return key;
    },
    async authorize(authorizationUrl, extra = {}) {
      const response = await fetch(authorizationUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (location === null) throw new Error(`the hostile provider did not redirect (${response.status})`);
      const back = new URL(location);
      for (const [name, value] of Object.entries(extra)) back.searchParams.set(name, value);
      return back;
    },
    async close() {
      for (const response of hanging) response.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  /** The claims an honest provider would put in the ID token for this code. */
  const claimsFor = (nonce: string | null): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: issuer, aud: provider.clientId, iat: now, exp: now + 600, ...(nonce === null ? {} : { nonce }), ...provider.account };
  };

  /** Runs `answer` unless the endpoint is told to misbehave. */
  const behave = (behaviour: EndpointBehaviour, response: ServerResponse, answer: () => void | Promise<void>) => {
    if (behaviour === 'hang') return void hanging.add(response);
    if (behaviour === 'reset') return void response.socket?.destroy();
    if (behaviour === 'fail') return json(response, 500, { error: 'server_error' });
    return answer();
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer);
    void (async () => {
      switch (url.pathname) {
        case '/.well-known/openid-configuration':
          provider.requests.discovery += 1;
          return behave(provider.behaviour.discovery, response, () =>
            json(response, 200, {
              issuer: provider.claimedIssuer ?? issuer,
              authorization_endpoint: `${issuer}/authorize`,
              token_endpoint: `${issuer}/token`,
              userinfo_endpoint: `${issuer}/userinfo`,
              jwks_uri: provider.jwksUri ?? `${issuer}/jwks`,
              response_types_supported: ['code'],
              subject_types_supported: ['public'],
              id_token_signing_alg_values_supported: provider.algorithms,
              code_challenge_methods_supported: ['S256'],
              token_endpoint_auth_methods_supported: ['client_secret_post'],
            }),
          );
        case '/jwks':
          provider.requests.jwks += 1;
          return behave(provider.behaviour.jwks, response, () => json(response, 200, { keys: provider.publishedKeys.map((key) => key.publicJwk) }));
        case '/authorize': {
          provider.requests.authorize += 1;
          const code = `code-${provider.requests.authorize}-${Math.random().toString(36).slice(2)}`;
          codes.set(code, { nonce: url.searchParams.get('nonce') });
          const back = new URL(url.searchParams.get('redirect_uri') ?? redirectUri);
          back.searchParams.set('code', code);
          back.searchParams.set('state', url.searchParams.get('state') ?? '');
          response.writeHead(302, { location: back.href }).end();
          return;
        }
        case '/token': {
          provider.requests.token += 1;
          const form = new URLSearchParams(await body(request));
          return behave(provider.behaviour.token, response, async () => {
            const issued = codes.get(form.get('code') ?? '');
            if (issued === undefined) return json(response, 400, { error: 'invalid_grant' });
            codes.delete(form.get('code')!);
            json(response, 200, { access_token: 'an access token', token_type: 'Bearer', expires_in: 600, id_token: await provider.idToken(claimsFor(issued.nonce)) });
          });
        }
        case '/userinfo':
          provider.requests.userinfo += 1;
          return json(response, 200, provider.account);
        default:
          return json(response, 404, { error: 'not_found' });
      }
    })();
  });
  return provider;
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(value));
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A JWT with `alg: none` and no signature, as RFC 7519 6.1 writes one. */
export function unsecuredToken(claims: JWTPayload): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

/** The token with its signature cut off: `header.payload.` */
export function withoutSignature(token: string): string {
  return `${token.slice(0, token.lastIndexOf('.'))}.`;
}
