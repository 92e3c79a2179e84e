/**
 * Sockets opened with an application's own scheme, written with the public exports only: a
 * gateway's identity header naming a Gatehouse user, which declares the `connection_init` field
 * that brings it and the revocation events that concern it. Such a socket closes with 4403 when
 * an event its scheme declares arrives and the scheme no longer vouches; `connection_init`
 * authenticates through whatever the default scheme is; and a `forwardDefaultSelector` picks the
 * scheme of a socket as it does of a request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type Challenge,
  Claim,
  ClaimsIdentity,
  ClaimsPrincipal,
  type CredentialSources,
  requestPath,
  type RevocationConcerns,
  singleHeader,
} from 'gatehouse-auth';
import type { GatehouseOptions } from 'gatehouse-auth/fastify';
import { gatehouseGraphQL, type GraphQLContext } from 'gatehouse-auth/graphql';
import { type AppUnderTest, startAppWith } from '../helpers/external-issuer.ts';
import { openSocket, type TestSocket } from '../helpers/graphql-socket.ts';

/** A revocation reaches a socket within 5 seconds (docs/reference/graphql.md). */
const PROPAGATION_MS = 5_000;
const PASSWORD = 'correct horse battery staple';

/**
 * `X-Gateway-User: <user id>`, set by the gateway in front of the service once it has signed the
 * user in; at `connection_init`, the payload's `gatewayUser`. The user must still exist.
 */
class GatewayHandler implements AuthenticationHandler {
  readonly scheme = 'Gateway';
  readonly credentials: CredentialSources = { headers: ['x-gateway-user'], connectionParams: { gatewayUser: 'x-gateway-user' } };
  /** Set once the app is up: the users the header may name. */
  findUser: (id: number) => Promise<{ readonly userName: string | null } | null> = async () => null;

  constructor(readonly revocations?: RevocationConcerns) {}

  async authenticate(request: AuthenticationRequest): Promise<AuthenticateResult> {
    const id = singleHeader(request, 'x-gateway-user');
    if (id === undefined) return AuthenticateResult.noResult();
    if (id === null || !/^[1-9][0-9]{0,9}$/.test(id)) return AuthenticateResult.fail(this.scheme, 'The gateway header is malformed.');
    const user = await this.findUser(Number(id));
    if (user === null) return AuthenticateResult.fail(this.scheme, 'The gateway names no user.');
    const identity = new ClaimsIdentity([new Claim('sub', id), new Claim('name', user.userName ?? '')], this.scheme);
    return AuthenticateResult.success(this.scheme, new ClaimsPrincipal([identity]));
  }

  challenge(): Challenge {
    return { wwwAuthenticate: 'Gateway' };
  }
}

const typeDefs = 'type Query { me: String, scheme: String }';
const resolvers = {
  Query: {
    me: (_source: unknown, _args: unknown, context: GraphQLContext) => context.user.name,
    scheme: (_source: unknown, _args: unknown, context: GraphQLContext) => context.user.identity?.authenticationType ?? null,
  },
};

interface Started extends AppUnderTest {
  /** The socket URL, `/graphql` on the listening instance. */
  readonly url: string;
  /** A Gatehouse user, and an access token of Gatehouse's own for it. */
  user(name: string): Promise<{ id: number; token: string }>;
}

const apps: Started[] = [];
const sockets: TestSocket[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.dispose()));
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function start(gateway: GatewayHandler, options: Omit<GatehouseOptions, 'config' | 'store' | 'schemes'> = {}): Promise<Started> {
  const started = await startAppWith({ ...options, schemes: [gateway] }, (app) => {
    app.register(gatehouseGraphQL, { typeDefs, resolvers });
  });
  gateway.findUser = (id) => started.app.gatehouse.users.findById(id);
  const url = `${(await started.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  let people = 0;
  const result: Started = {
    ...started,
    url,
    async user(name) {
      people += 1;
      const user = await started.app.gatehouse.users.create({ email: `${name}-${people}@example.com`, userName: name, emailConfirmed: true, password: PASSWORD });
      return { id: user.id, token: (await started.services.accessTokens.issue(user)).token };
    },
  };
  apps.push(result);
  return result;
}

function socket(url: string, options: Parameters<typeof openSocket>[1]): TestSocket {
  const opened = openSocket(url, options);
  sockets.push(opened);
  return opened;
}

describe('a socket opened with an application scheme', () => {
  it('closes with 4403 at a revocation event its scheme declares, once the scheme no longer vouches', async () => {
    const { url, user, app } = await start(new GatewayHandler({ ofTheUser: ['user-deleted'] }), { defaultScheme: 'Gateway' });
    const gone = await user('gone-user');
    const kept = await user('kept-user');
    const closing = socket(url, { headers: { 'x-gateway-user': String(gone.id) } });
    const staying = socket(url, { headers: { 'x-gateway-user': String(kept.id) } });
    expect(await closing.execute('{ me scheme }')).toEqual({ data: { me: 'gone-user', scheme: 'Gateway' } });
    expect(await staying.execute('{ me }')).toEqual({ data: { me: 'kept-user' } });
    await app.gatehouse.users.delete(gone.id);
    expect((await closing.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    // The event named another user: that socket was not even looked at again.
    expect(staying.isClosed()).toBe(false);
    expect(await staying.execute('{ me }')).toEqual({ data: { me: 'kept-user' } });
  });

  it('is not re-checked at an event its scheme does not declare', async () => {
    const { url, user, app } = await start(new GatewayHandler(), { defaultScheme: 'Gateway' });
    const gone = await user('undeclared-user');
    const opened = socket(url, { headers: { 'x-gateway-user': String(gone.id) } });
    expect(await opened.execute('{ me }')).toEqual({ data: { me: 'undeclared-user' } });
    await app.gatehouse.users.delete(gone.id);
    // Past the time the event takes to arrive, the socket is still open: nothing told it to look.
    await expect(opened.closedWithin(2_500)).rejects.toThrow();
    expect(opened.isClosed()).toBe(false);
  });
});

describe('connection_init with an application scheme as the default', () => {
  it('authenticates through the default scheme, with the payload field the scheme declares', async () => {
    const { url, user } = await start(new GatewayHandler(), { defaultScheme: 'Gateway' });
    const named = await user('init-user');
    const opened = socket(url, { connectionParams: { gatewayUser: String(named.id) } });
    await opened.connected;
    expect(await opened.execute('{ me scheme }')).toEqual({ data: { me: 'init-user', scheme: 'Gateway' } });
  });

  it('closes with 4403 when the default scheme refuses what the payload brings, a Gatehouse token included', async () => {
    const { url, user } = await start(new GatewayHandler(), { defaultScheme: 'Gateway' });
    const named = await user('refused-user');
    const unknown = socket(url, { connectionParams: { gatewayUser: '999999' } });
    expect((await unknown.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    const malformed = socket(url, { connectionParams: { gatewayUser: 42 } });
    expect((await malformed.closedWithin(PROPAGATION_MS)).code).toBe(4403);
    // Over HTTP a route naming no scheme would judge this token with Gateway too, which finds no credential in it.
    const token = socket(url, { connectionParams: { authorization: `Bearer ${named.token}` } });
    expect((await token.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });

  it('keeps Gatehouse\'s bearer tokens when the default is chosen by request shape', async () => {
    const { url, user } = await start(new GatewayHandler());
    const named = await user('bearer-user');
    const opened = socket(url, { connectionParams: { authorization: `Bearer ${named.token}` } });
    expect(await opened.execute('{ me scheme }')).toEqual({ data: { me: 'bearer-user', scheme: 'Bearer' } });
  });
});

describe('a forwardDefaultSelector on sockets', () => {
  /** Requests that say `?via=gateway` come through the gateway; for the others, the default decides. */
  const viaGateway = (request: AuthenticationRequest) => (requestPath(request) === '/graphql' && request.query?.via === 'gateway' ? 'Gateway' : undefined);

  it('picks the scheme of a socket from its upgrade request, as it does over HTTP', async () => {
    const { url, user, app } = await start(new GatewayHandler(), { forwardDefaultSelector: viaGateway });
    const named = await user('selected-user');
    const headers = { 'x-gateway-user': String(named.id) };
    const chosen = socket(`${url}?via=gateway`, { headers });
    expect(await chosen.execute('{ me scheme }')).toEqual({ data: { me: 'selected-user', scheme: 'Gateway' } });
    // Without the selector's mark, the request's shape decides (Cookies, which finds nothing): anonymous.
    const unchosen = socket(url, { headers });
    expect(await unchosen.execute('{ me }')).toEqual({ data: { me: null } });
    // The same choice over HTTP.
    const post = (path: string) => app.inject({ method: 'POST', url: path, headers, payload: { query: '{ me }' } });
    expect((await post('/graphql?via=gateway')).json()).toEqual({ data: { me: 'selected-user' } });
    expect((await post('/graphql')).json()).toEqual({ data: { me: null } });
  });

  it('judges connection_init with the scheme it picks from the upgrade request', async () => {
    const { url, user } = await start(new GatewayHandler(), { forwardDefaultSelector: viaGateway });
    const named = await user('init-selected-user');
    const chosen = socket(`${url}?via=gateway`, { connectionParams: { gatewayUser: String(named.id) } });
    expect(await chosen.execute('{ me scheme }')).toEqual({ data: { me: 'init-selected-user', scheme: 'Gateway' } });
    // Elsewhere the shape decides: Cookies finds no credential in the payload's field, which refuses the socket.
    const unchosen = socket(url, { connectionParams: { gatewayUser: String(named.id) } });
    expect((await unchosen.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });
});
