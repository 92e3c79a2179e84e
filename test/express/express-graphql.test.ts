/**
 * GraphQL on Express, driven as a client drives it: queries and mutations over HTTP with and
 * without credentials, the refusals of the GraphQL path, and subscriptions over graphql-ws on the
 * server's upgrades, which follow their credential. Run with the body parser before Gatehouse and
 * after it.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type AuthorizationPolicy, AuthorizationPolicyBuilder, type PolicyName } from 'gatehouse-auth';
import { type ExpressGatehouse, type ExpressGraphQL, gatehouse } from 'gatehouse-auth/express';
import { authorizeDirective, createEvents, type Events } from 'gatehouse-auth/graphql';

const PASSWORD = 'correct horse battery staple';

type Topics = { shouted: { text: string } };

const typeDefs = [
  authorizeDirective,
  `
  type Query {
    hello: String!
    me: String @authorize
    report: String @authorize(policy: "PremiumOnly")
  }
  type Mutation { shout(text: String!): String! @authorize }
  type Subscription { shouted: String! @authorize }
`,
];

function resolvers(events: Events<Topics>) {
  return {
    Query: {
      hello: () => 'world',
      me: (_root: unknown, _args: unknown, context: { user: { name: string | null } }) => context.user.name,
      report: () => 'premium figures',
    },
    Mutation: {
      shout: async (_root: unknown, args: { text: string }) => {
        await events.publish('shouted', { text: args.text });
        return args.text;
      },
    },
    Subscription: { shouted: { subscribe: () => events.subscribe('shouted'), resolve: (event: { text: string }) => event.text } },
  };
}

interface Served {
  readonly auth: ExpressGatehouse;
  readonly graphql: ExpressGraphQL;
  readonly url: string;
  close(): Promise<void>;
}

async function application(parserFirst: boolean): Promise<Served> {
  const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
  const auth = await gatehouse(
    { settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' }, policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy> },
    { logger: pino({ level: 'silent' }) },
  );
  const events = createEvents<Topics>({});
  const graphql = await auth.graphql({ typeDefs, resolvers: resolvers(events), events });
  const app = express();
  if (parserFirst) app.use(express.json());
  app.use(auth.endpoints);
  app.use(graphql.handler);
  if (!parserFirst) app.use(express.json());
  app.use(auth.middleware);
  app.use(auth.errors);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  graphql.attach(server, app);
  const { port } = server.address() as AddressInfo;
  return {
    auth,
    graphql,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await graphql.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

/** A graphql-transport-ws client on a bare socket: the messages it got, and how it closed. */
function subscriber(url: string, init: Record<string, unknown>, headers: Record<string, string> = {}) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers });
  const messages: { type: string; payload?: unknown }[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as { type: string });
    for (const wake of waiters.splice(0)) wake();
  });
  const closed = new Promise<{ code: number }>((resolve) => socket.on('close', (code) => resolve({ code })));
  const refused = new Promise<number>((resolve) => socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)));
  socket.on('error', () => undefined);
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: init })));
  const next = async (type: string) => {
    for (;;) {
      const found = messages.find((message) => message.type === type);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    socket,
    closed,
    refused,
    next,
    subscribe: () => socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { shouted }' } })),
  };
}

describe.each([
  ['Gatehouse before the body parser', false],
  ['the body parser before Gatehouse', true],
])('GraphQL on Express, %s', (_name, parserFirst) => {
  let served: Served;
  let ada: string;
  let bob: string;
  let bobId: number;

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${served.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const query = async (text: string, token?: string) => {
    const response = await post(JSON.stringify({ query: text }), token ? { authorization: `Bearer ${token}` } : {});
    expect(response.status).toBe(200);
    return (await response.json()) as { data?: Record<string, unknown> | null; errors?: { extensions: { code: string } }[] };
  };
  const signIn = async (email: string) => {
    const response = await fetch(`${served.url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { accessToken: string }).accessToken;
  };

  beforeAll(async () => {
    served = await application(parserFirst);
    const { users } = served.auth.gatehouse;
    const premium = await users.create({ email: 'ada@example.com', userName: 'ada', password: PASSWORD, emailConfirmed: true });
    await users.addRole(premium.id, 'Premium');
    bobId = (await users.create({ email: 'bob@example.com', userName: 'bob', password: PASSWORD, emailConfirmed: true })).id;
    ada = await signIn('ada@example.com');
    bob = await signIn('bob@example.com');
  });

  afterAll(() => served.close());

  it('answers the fields an anonymous caller may read, and UNAUTHENTICATED for the rest', async () => {
    const answer = await query('{ hello me }');
    expect(answer.data).toEqual({ hello: 'world', me: null });
    expect(answer.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  });

  it("reads the bearer's fields, and FORBIDDEN where the policy refuses the caller", async () => {
    expect((await query('{ me report }', ada)).data).toEqual({ me: 'ada', report: 'premium figures' });
    const bobs = await query('{ me report }', bob);
    expect(bobs.data).toEqual({ me: 'bob', report: null });
    expect(bobs.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
  });

  it('refuses an invalid bearer token with 401 problem+json and a challenge, never stored', async () => {
    const response = await post(JSON.stringify({ query: '{ hello }' }), { authorization: 'Bearer not-a-token' });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('runs queries over GET, refuses a mutation over GET and other methods with 405 in the GraphQL error shape', async () => {
    const get = await fetch(`${served.url}/graphql?query=${encodeURIComponent('{ hello }')}`);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { hello: 'world' } });
    const mutation = await fetch(`${served.url}/graphql?query=${encodeURIComponent('mutation { shout(text: "x") }')}`, { headers: { authorization: `Bearer ${ada}` } });
    expect(mutation.status).toBe(405);
    expect(mutation.headers.get('allow')).toBe('POST');
    const put = await fetch(`${served.url}/graphql`, { method: 'PUT', headers: { authorization: 'Bearer not-a-token' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(((await put.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('refuses a body that is not one JSON operation: a batch and a wrong member with 400, another type with 415, bad JSON with 400', async () => {
    const batch = await post(JSON.stringify([{ query: '{ hello }' }]));
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('BAD_REQUEST');
    expect((await post(JSON.stringify({ query: '{ hello }', variables: [] }))).status).toBe(400);
    const text = await fetch(`${served.url}/graphql`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ hello }' });
    expect(text.status).toBe(415);
    expect(text.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const broken = await post('{"query": ');
    expect(broken.status).toBe(400);
    expect(broken.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('delivers a mutation to a subscriber signed in at connection_init, and closes its socket with 4403 when its user is locked', async () => {
    const client = subscriber(served.url, { authorization: `Bearer ${bob}` });
    await client.next('connection_ack');
    client.subscribe();
    // The subscription is running once a first event reaches it: shout until one does.
    const delivered = client.next('next');
    let sent = 0;
    const shouting = setInterval(() => void query(`mutation { shout(text: "hello ${++sent}") }`, ada), 20);
    try {
      const message = (await delivered) as { payload: { data: { shouted: string } } };
      expect(message.payload.data.shouted).toMatch(/^hello \d+$/);
    } finally {
      clearInterval(shouting);
    }
    await served.auth.gatehouse.users.lock(bobId);
    expect((await client.closed).code).toBe(4403);
    await served.auth.gatehouse.users.unlock(bobId);
    bob = await signIn('bob@example.com');
  });

  it('refuses an upgrade with an invalid bearer header with 401, and one elsewhere with 404', async () => {
    const refused = subscriber(served.url, {}, { authorization: 'Bearer not-a-token' });
    expect(await refused.refused).toBe(401);
    const elsewhere = new WebSocket(`${served.url.replace(/^http/, 'ws')}/elsewhere`, 'graphql-transport-ws');
    elsewhere.on('error', () => undefined);
    expect(await new Promise((resolve) => elsewhere.on('unexpected-response', (_request, response) => resolve(response.statusCode)))).toBe(404);
  });

  it('takes the auth cookie only from a trusted origin: a POST and an upgrade from another site are 403', async () => {
    const login = await fetch(`${served.url}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const body = JSON.stringify({ query: '{ me }' });
    const trusted = await post(body, { cookie, origin: 'http://localhost:3000' });
    expect(trusted.status).toBe(200);
    expect(await trusted.json()).toEqual({ data: { me: 'ada' } });
    const crossSite = await post(body, { cookie, origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const socket = subscriber(served.url, {}, { cookie, origin: 'https://evil.example' });
    expect(await socket.refused).toBe(403);
  });

  it('closes a socket whose connection_init brings an invalid token with 4403', async () => {
    const client = subscriber(served.url, { authorization: 'Bearer not-a-token' });
    expect((await client.closed).code).toBe(4403);
  });
});

describe('GraphQL on Express, its start', () => {
  it('fails for a rule naming a policy nobody declared', async () => {
    const auth = await gatehouse({ settings: { databaseUrl: 'sqlite::memory:' } }, { logger: pino({ level: 'silent' }) });
    try {
      await expect(auth.graphql({ typeDefs: [authorizeDirective, 'type Query { secret: String @authorize(policy: "Nobody") }'], resolvers: {} })).rejects.toThrow(/Query\.secret/);
    } finally {
      await auth.close();
    }
  });
});
