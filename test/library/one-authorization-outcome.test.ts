/**
 * One authorization outcome, rendered by each transport: the same check refuses an anonymous
 * caller with a challenge and an authenticated stranger with a forbid, whether a route's policy
 * runs it, a handler (`request.authorize`), a GraphQL resolver over HTTP (`context.authorize`) or
 * an operation on a socket. HTTP renders a challenge as 401 with the scheme's `WWW-Authenticate`
 * and a forbid as 403; GraphQL as `UNAUTHENTICATED` and `FORBIDDEN`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { authorizeDirective, gatehouseGraphQL, type GraphQLContext } from 'gatehouse-auth/graphql';
import { openSocket, type Received } from '../helpers/graphql-socket.ts';
import { bearer, json } from '../helpers/test-app.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

interface Invoice {
  readonly id: number;
  readonly ownerId: string;
}

class InvoiceOwner implements AuthorizationRequirement {
  readonly description = 'the invoice owner';
}

class InvoiceOwnerHandler extends ResourceRequirementHandler<InvoiceOwner, Invoice> {
  constructor() {
    super(InvoiceOwner, (resource): resource is Invoice => typeof (resource as Invoice | null)?.ownerId === 'string');
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: InvoiceOwner, invoice: Invoice): void {
    if (context.user.subject === invoice.ownerId) context.succeed(requirement);
  }
}

const owned = new InvoiceOwner();
const codes = (received: Received) => (received.errors ?? []).map((error) => error.extensions?.code);

describe('one authorization outcome on every transport', () => {
  let app: FastifyInstance;
  let invoice: Invoice;
  let owner: string;
  let stranger: string;
  let socketUrl: string;

  beforeAll(async () => {
    const settings = { databaseUrl: 'sqlite::memory:' };
    app = Fastify(serverOptions(configFromSettings(settings)));
    await app.register(gatehouse, { settings, fallbackPolicy: null, handlers: [new InvoiceOwnerHandler()] });
    await app.register(gatehouseGraphQL, {
      typeDefs: [authorizeDirective, 'type Invoice { id: Int! }  type Query { invoice: Invoice }'],
      resolvers: {
        Query: {
          invoice: async (_root: unknown, _args: unknown, context: GraphQLContext) => {
            await context.authorize(invoice, owned);
            return invoice;
          },
        },
      },
    });
    app.get('/invoices/7', async (request) => {
      await request.authorize(invoice, owned);
      return invoice;
    });
    // A route whose policy the stranger fails as they fail the resource check.
    app.get('/accounting', { config: { authorization: { authorize: [{ roles: ['Accountant'] }] } } }, async () => invoice);
    await app.ready();
    const tokenOf = async (email: string) => {
      const user = await app.gatehouse.users.create({ email, password: 'a long passphrase here', emailConfirmed: true });
      return { id: String(user.id), token: (await gatehouseServices(app.gatehouse).accessTokens.issue(user)).token };
    };
    const ownerUser = await tokenOf('owner@example.com');
    owner = ownerUser.token;
    stranger = (await tokenOf('stranger@example.com')).token;
    invoice = { id: 7, ownerId: ownerUser.id };
    socketUrl = `${(await app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}/graphql`;
  });

  afterAll(async () => {
    await app?.close();
  });

  const graphql = async (headers: Record<string, string> = {}) =>
    json<Received>(await app.inject({ method: 'POST', url: '/graphql', headers, payload: { query: '{ invoice { id } }' } }));

  const overSocket = async (headers: Record<string, string> = {}) => {
    const socket = openSocket(socketUrl, { headers });
    try {
      await socket.connected;
      return await socket.execute('{ invoice { id } }');
    } finally {
      await socket.dispose();
    }
  };

  it('challenges an anonymous caller: the resource check answers the route’s 401, GraphQL UNAUTHENTICATED', async () => {
    const route = await app.inject({ url: '/accounting' });
    const check = await app.inject({ url: '/invoices/7' });
    expect(route.statusCode).toBe(401);
    expect(check.statusCode).toBe(401);
    expect(check.headers['www-authenticate']).toBe('Bearer');
    expect(check.headers['www-authenticate']).toBe(route.headers['www-authenticate']);
    expect(json(check)).toEqual(json(route));
    expect(codes(await graphql())).toEqual(['UNAUTHENTICATED']);
    expect(codes(await overSocket())).toEqual(['UNAUTHENTICATED']);
  });

  it('forbids an authenticated stranger: the resource check answers the route’s 403, GraphQL FORBIDDEN', async () => {
    const route = await app.inject({ url: '/accounting', headers: bearer(stranger) });
    const check = await app.inject({ url: '/invoices/7', headers: bearer(stranger) });
    expect(route.statusCode).toBe(403);
    expect(check.statusCode).toBe(403);
    expect(json(check)).toEqual(json(route));
    expect(json(check)).toMatchObject({ code: 'GH_FORBIDDEN', policy: ['Bearer'] });
    expect(codes(await graphql(bearer(stranger)))).toEqual(['FORBIDDEN']);
    expect(codes(await overSocket(bearer(stranger)))).toEqual(['FORBIDDEN']);
  });

  it('lets the owner through on every transport', async () => {
    expect((await app.inject({ url: '/invoices/7', headers: bearer(owner) })).statusCode).toBe(200);
    expect(await graphql(bearer(owner))).toEqual({ data: { invoice: { id: 7 } } });
    expect(await overSocket(bearer(owner))).toEqual({ data: { invoice: { id: 7 } } });
  });

  it('challenges a credential that does not hold alike on a route, in a handler and on GraphQL’s path', async () => {
    const forged = bearer('not.a.token');
    const answers = await Promise.all(
      [{ url: '/accounting' }, { url: '/invoices/7' }, { method: 'POST' as const, url: '/graphql', payload: { query: '{ invoice { id } }' } }].map((request) =>
        app.inject({ ...request, headers: forged }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 401]);
    expect(new Set(answers.map((answer) => answer.headers['www-authenticate']))).toEqual(new Set([answers[0]!.headers['www-authenticate']]));
    expect(answers[0]!.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });
});
