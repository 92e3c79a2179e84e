/**
 * Gatehouse's GraphQL rules on servers the application runs, driven as clients drive them: one
 * schema under `@authorize`, served by Apollo Server (its Express integration), graphql-http and
 * GraphQL Yoga over HTTP, and by graphql-ws's `useServer` on a `ws` server of the application's own. The
 * caller of each request and socket is Gatehouse's, and so are the refusals.
 */
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { createHandler } from 'graphql-http/lib/use/express';
import { createHandler as createFetchHandler } from 'graphql-http/lib/use/fetch';
import { createYoga } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName } from 'gatehouse-auth';
import { type ExpressGatehouse, gatehouse } from 'gatehouse-auth/express';
import { authorizeDirective, buildExecutableSchema, createEvents, type GraphQLAuthorization, type GraphQLContext, graphqlAuthorization } from 'gatehouse-auth/graphql';
import { openSocket } from '../helpers/graphql-socket.ts';
import { adaAndBob, hostClient } from '../helpers/host-client.ts';

type Topics = { shouted: { text: string } };

const typeDefs = [
  authorizeDirective,
  `
  type Query {
    hello: String!
    me: String @authorize
    report: String @authorize(policy: "PremiumOnly")
    greeting: String!
  }
  type Mutation { shout(text: String!): String! @authorize }
  type Subscription {
    shouted: String! @authorize
    premiumShouted: String! @authorize(policy: "PremiumOnly")
  }
`,
];

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe('Gatehouse on GraphQL servers the application runs', () => {
  let auth: ExpressGatehouse;
  let gql: GraphQLAuthorization<{ greeting: string }>;
  let apollo: ApolloServer<GraphQLContext & { greeting: string }>;
  let sockets: WebSocketServer;
  let stopSockets: () => Promise<void>;
  let url = '';
  let tokens: { ada: string; bob: string };
  const client = hostClient(() => url);

  beforeAll(async () => {
    const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
    auth = await gatehouse(
      { settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' }, policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy> },
      { logger: pino({ level: 'silent' }) },
    );
    const events = createEvents<Topics>({});
    gql = graphqlAuthorization(auth.gatehouse, { context: (context) => ({ greeting: `hello, ${context.user.name ?? 'stranger'}` }) });
    const schema = gql.authorize(
      buildExecutableSchema<GraphQLContext & { greeting: string }>(typeDefs, {
        Query: {
          hello: () => 'world',
          me: (_root, _args, context) => context.user.name,
          report: () => 'premium figures',
          greeting: (_root, _args, context) => context.greeting,
        },
        Mutation: {
          shout: async (_root, args) => {
            await events.publish('shouted', { text: (args as { text: string }).text });
            return (args as { text: string }).text;
          },
        },
        Subscription: {
          shouted: { subscribe: () => events.subscribe('shouted'), resolve: (event: { text: string }) => event.text },
          premiumShouted: { subscribe: () => events.subscribe('shouted'), resolve: (event: { text: string }) => event.text },
        },
      }),
    );
    apollo = new ApolloServer({ schema });
    await apollo.start();
    const app = express();
    app.use(auth.endpoints);
    app.use('/apollo', express.json(), expressMiddleware(apollo, { context: ({ req }) => gql.context(req) }));
    app.use(
      '/graphql-http',
      createHandler({
        schema,
        context: async (req) => {
          const operated = await gql.operation(req.raw);
          // graphql-http types its context as a record; a refusal is answered as `[body, init]`.
          return 'context' in operated ? (operated.context as unknown as Record<string, unknown>) : [operated.refusal.body, operated.refusal];
        },
      }),
    );
    const yoga = createYoga({ schema, graphqlEndpoint: '/yoga', maskedErrors: false, context: ({ request }) => gql.context(request) });
    app.use('/yoga', yoga);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    sockets = new WebSocketServer({ server, path: '/graphql-ws' });
    const disposable = useServer({ schema, ...gql.socketOptions({ maxSubscriptionsPerSocket: 2 }) }, sockets);
    stopSockets = async () => {
      await disposable.dispose();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tokens = await adaAndBob(auth.gatehouse, client);
  });

  afterAll(async () => {
    await stopSockets?.();
    await apollo?.stop();
    await auth?.close();
  });

  const post = (path: string, query: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  describe.each([['Apollo Server', '/apollo'], ['graphql-http', '/graphql-http'], ['GraphQL Yoga', '/yoga']])('%s', (_server, path) => {
    const query = async (text: string, headers: Record<string, string> = {}) => {
      const response = await post(path, text, headers);
      expect(response.status).toBe(200);
      return (await response.json()) as Answer;
    };

    it('answers the fields an anonymous caller may read, and UNAUTHENTICATED for the rest', async () => {
      const answer = await query('{ hello me greeting }');
      expect(answer.data).toEqual({ hello: 'world', me: null, greeting: 'hello, stranger' });
      expect(answer.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    });

    it("reads the bearer's fields, with the application's context, and FORBIDDEN where the policy refuses the caller", async () => {
      expect((await query('{ me report greeting }', bearer(tokens.ada))).data).toEqual({ me: 'ada', report: 'premium figures', greeting: 'hello, ada' });
      const bobs = await query('{ me report }', bearer(tokens.bob));
      expect(bobs.data).toEqual({ me: 'bob', report: null });
      expect(bobs.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    });

    it('refuses an invalid bearer token with 401 and its challenge, before any field runs', async () => {
      const response = await post(path, '{ hello }', bearer('not-a-token'));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      const text = await response.text();
      expect(text).not.toContain('world');
      expect(text).toContain(path === '/graphql-http' ? 'GH_UNAUTHENTICATED' : 'UNAUTHENTICATED');
      // The body's type is the body's: a problem from graphql-http, a GraphQL result from the others.
      expect(response.headers.get('content-type')).toMatch(path === '/graphql-http' ? /^application\/problem\+json/ : /^application\/(graphql-response\+)?json/);
    });
  });

  it('takes a Web request, as a fetch handler hands it over (graphql-http on the Fetch API)', async () => {
    const schema = gql.authorize(buildExecutableSchema<GraphQLContext>([authorizeDirective, 'type Query { me: String @authorize }'], { Query: { me: (_root, _args, context) => context.user.name } }));
    const handler = createFetchHandler({
      schema,
      context: async (request) => {
        const operated = await gql.operation(request.raw, { ip: '203.0.113.7' });
        return 'context' in operated ? (operated.context as unknown as Record<string, unknown>) : [operated.refusal.body, operated.refusal];
      },
    });
    const ask = (headers: Record<string, string>) =>
      handler(new Request('http://localhost:3000/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ me }' }) }));
    const signedIn = await ask(bearer(tokens.ada));
    expect(signedIn.status).toBe(200);
    expect(await signedIn.json()).toEqual({ data: { me: 'ada' } });
    const refused = await ask(bearer('not-a-token'));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('refuses misspelt options and limits that are not positive integers, naming them', () => {
    expect(() => graphqlAuthorization(auth.gatehouse, { contxt: () => ({}) } as never)).toThrow(/has no option "contxt"; did you mean "context"\?/);
    expect(() => gql.socketOptions({ maxSocketsPerUsr: 3 } as never)).toThrow(/has no option "maxSocketsPerUsr"; did you mean "maxSocketsPerUser"\?/);
    expect(() => gql.socketOptions({ maxSocketsPerIp: 0 })).toThrow(/maxSocketsPerIp must be a positive integer/);
  });

  it('refuses a rule naming a policy the application does not have when the schema is authorized, not at a request', () => {
    const schema = buildExecutableSchema([authorizeDirective, 'type Query { secret: String @authorize(policy: "NoSuchPolicy") }'], { Query: { secret: () => 'x' } });
    expect(() => gql.authorize(schema)).toThrow(/Query\.secret.*NoSuchPolicy/);
  });

  describe('graphql-ws on the application socket server', () => {
    const socketUrl = () => `${url}/graphql-ws`.replace(/^http/, 'ws').replace(/\/graphql-ws$/, '');

    it('authenticates at connection_init, runs operations as that caller, and delivers events through the policy of each field', async () => {
      const ada = openSocket(`${socketUrl()}/graphql-ws`, { connectionParams: bearer(tokens.ada) });
      const bob = openSocket(`${socketUrl()}/graphql-ws`, { connectionParams: bearer(tokens.bob) });
      await Promise.all([ada.connected, bob.connected]);
      expect((await ada.execute('{ me greeting }')).data).toEqual({ me: 'ada', greeting: 'hello, ada' });
      const adas = ada.subscribe('subscription { premiumShouted }');
      const bobs = bob.subscribe('subscription { premiumShouted }');
      // A refused subscription is one result with the error, then its end (graphql-js's subscribe, graphql-ws's `next`).
      await expect.poll(() => bobs.received[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      await expect.poll(async () => {
        await post('/apollo', 'mutation { shout(text: "hi") }', bearer(tokens.ada));
        return adas.received.length;
      }).toBeGreaterThan(0);
      expect(adas.received[0]?.data).toEqual({ premiumShouted: 'hi' });
      await Promise.all([ada.dispose(), bob.dispose()]);
    });

    it('closes a socket with 4403 for an invalid credential at connection_init', async () => {
      const socket = openSocket(`${socketUrl()}/graphql-ws`, { connectionParams: bearer('not-a-token') });
      expect((await socket.closedWithin(5_000)).code).toBe(4403);
    });

    it('closes a signed-in socket with 4403 once its role is taken away, its active subscription with it', async () => {
      const carol = await auth.gatehouse.users.create({ email: 'carol@example.com', userName: 'carol', password: 'correct horse battery staple', emailConfirmed: true });
      await auth.gatehouse.users.addRole(carol.id, 'Premium');
      const token = await client.signIn('carol@example.com');
      const socket = openSocket(`${socketUrl()}/graphql-ws`, { connectionParams: bearer(token) });
      await socket.connected;
      socket.subscribe('subscription { premiumShouted }');
      await auth.gatehouse.users.removeRole(carol.id, 'Premium');
      expect((await socket.closedWithin(5_000)).code).toBe(4403);
    });

    it('refuses a cookie-signed-in socket from an origin not trusted with the cookie', async () => {
      const signIn = await fetch(`${url}/account/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery staple' }) });
      expect(signIn.status).toBe(200);
      const cookie = signIn.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
      const trusted = openSocket(`${socketUrl()}/graphql-ws`, { headers: { cookie, origin: 'http://localhost:3000' } });
      await trusted.connected;
      expect((await trusted.execute('{ me }')).data).toEqual({ me: 'ada' });
      await trusted.dispose();
      const foreign = openSocket(`${socketUrl()}/graphql-ws`, { headers: { cookie, origin: 'https://attacker.example' } });
      expect((await foreign.closedWithin(5_000)).code).toBe(4403);
    });

    it('bounds the operations active on one socket', async () => {
      const socket = openSocket(`${socketUrl()}/graphql-ws`, { connectionParams: bearer(tokens.ada) });
      await socket.connected;
      socket.subscribe('subscription { shouted }');
      socket.subscribe('subscription { shouted }');
      const third = socket.subscribe('subscription { shouted }');
      await expect.poll(() => third.errors()?.[0]?.extensions?.code).toBe('TOO_MANY_SUBSCRIPTIONS');
      await socket.dispose();
    });
  });
});
