/**
 * GraphQL for an application's own schema (gatehouse-auth/graphql): the team application of
 * test/helpers/team-graphql-app.ts beside the reference service, over HTTP and graphql-ws. Its
 * `@authorize` rules on a field (a resource policy), a type and a mutation, a resource check in a
 * resolver, its context, its limits and result cache, its subscriptions fed by its own events
 * (in memory, and through Redis across two instances), and the live-connection rules of * docs/reference/graphql.md on its path; and the same rules as extensions of a graphql-js schema. The store plays
 * no part in any of it: SQLite only.
 */
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import type { LightMyRequestResponse } from 'fastify';
import { createEvents, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket, type Received } from '../helpers/graphql-socket.ts';
import { bearer, json } from '../helpers/test-app.ts';
import { startTeamApp, TEAM_PATH, TeamData, type TeamApp, type TeamTopics } from '../helpers/team-graphql-app.ts';

const sqlite = (await testEngines()).filter((engine) => engine.engine === 'sqlite');
const withRedis = await redisAvailable();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;

const codes = (received: Received) => (received.errors ?? []).map((error) => error.extensions?.code);

describe.each(sqlite)('an application schema on $engine', (engine) => {
  const team = new TeamData();
  let instance: TeamApp;
  let url: string;

  beforeAll(async () => {
    instance = await startTeamApp(await engine.createDatabaseUrl(), team, { graphql: { limits: { maxAliases: 2 } } });
    url = `${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}${TEAM_PATH}`;
  });
  afterAll(async () => {
    await instance?.close();
    await engine.dropAll();
  });

  const post = (query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    instance.app.inject({ method: 'POST', url: TEAM_PATH, headers, payload: { query, ...(variables ? { variables } : {}) } });
  const run = async (query: string, headers: Record<string, string> = {}) => json<Received>(await post(query, headers));

  it('checks a resource policy on a field with the object read: each member sees their own email, an admin every one', async () => {
    const ann = await instance.member('ann');
    const bob = await instance.member('bob');
    const admin = await instance.member('admin', ['Admin']);
    const query = '{ members { name email } }';
    const emails = (received: Received) => Object.fromEntries((received.data!.members as { name: string; email: string | null }[]).map((member) => [member.name, member.email]));

    const asAnn = await run(query, bearer(ann.token));
    expect(emails(asAnn)).toMatchObject({ ann: ann.user.email, bob: null });
    expect(new Set(codes(asAnn))).toEqual(new Set(['FORBIDDEN']));
    expect(asAnn.errors!.every((error) => error.path?.[0] === 'members' && error.path[2] === 'email')).toBe(true);
    expect(emails(await run(query, bearer(admin.token)))).toMatchObject({ ann: ann.user.email, bob: bob.user.email, admin: admin.user.email });
    const anonymous = await run(query);
    expect(Object.values(emails(anonymous)).every((email) => email === null)).toBe(true);
    expect(new Set(codes(anonymous))).toEqual(new Set(['UNAUTHENTICATED']));
  });

  it('checks a rule on a type for every field of it: the ledger is for accountants', async () => {
    const clerk = await instance.member('clerk');
    const accountant = await instance.member('accountant', ['Accountant']);
    const refused = await run('{ ledger { total } }', bearer(clerk.token));
    // `total` is non-null: its null reaches the nullable `ledger`, as the GraphQL spec says.
    expect(refused.data).toEqual({ ledger: null });
    expect(codes(refused)).toEqual(['FORBIDDEN']);
    expect(codes(await run('{ ledger { entries } }'))).toEqual(['UNAUTHENTICATED']);
    expect(await run('{ ledger { entries } }', bearer(accountant.token))).toEqual({ data: { ledger: { entries: team.notes.length } } });
  });

  it('runs a mutation under a named policy, and a resource check inside a resolver through the context', async () => {
    const author = await instance.member('author');
    const other = await instance.member('other');
    const anonymous = await post('mutation { addNote(text: "nobody") { id } }');
    expect(anonymous.statusCode).toBe(200);
    expect(json<Received>(anonymous)).toMatchObject({ data: null, errors: [{ path: ['addNote'], extensions: { code: 'UNAUTHENTICATED' } }] });

    const added = await run('mutation { addNote(text: "first") { id text author { name } mine } }', bearer(author.token));
    const note = added.data!.addNote as { id: string };
    expect(added).toEqual({ data: { addNote: { id: note.id, text: 'first', author: { name: 'author' }, mine: true } } });
    const deleteNote = `mutation { deleteNote(id: "${note.id}") }`;
    expect(codes(await run(deleteNote, bearer(other.token)))).toEqual(['FORBIDDEN']);
    expect(codes(await run(deleteNote))).toEqual(['UNAUTHENTICATED']);
    expect(await run(deleteNote, bearer(author.token))).toEqual({ data: { deleteNote: true } });
  });

  it("keeps an answer every caller gets alike while the application's data version holds, and none that read the caller", async () => {
    const writer = await instance.member('writer');
    await run('mutation { addNote(text: "cached") { id } }', bearer(writer.token));
    const before = team.notesResolved;
    const first = await run('{ notes { text } }');
    expect(await run('{ notes { text } }', bearer(writer.token))).toEqual(first);
    expect(team.notesResolved - before).toBe(1);
    await run('mutation { addNote(text: "after") { id } }', bearer(writer.token));
    expect((await run('{ notes { text } }')).data!.notes).toContainEqual({ text: 'after' });
    expect(team.notesResolved - before).toBe(2);

    // `me` and `mine` read the caller with no rule on them: each caller gets their own answer.
    expect(await run('{ me }')).toEqual({ data: { me: 'anonymous' } });
    expect(await run('{ me }', bearer(writer.token))).toEqual({ data: { me: String(writer.user.id) } });
    const mine = '{ notes { text mine } }';
    expect((await run(mine, bearer(writer.token))).data!.notes).toContainEqual({ text: 'after', mine: true });
    expect((await run(mine)).data!.notes).toContainEqual({ text: 'after', mine: false });
  });

  it("applies the application's limits before the settings', and answers introspection outside production", async () => {
    expect((await post('{ a: notes { text } b: notes { text } }')).statusCode).toBe(200);
    const aliased = await post('{ a: notes { text } b: notes { text } c: notes { text } }');
    expect(aliased.statusCode).toBe(400);
    expect(json(aliased)).toEqual({ errors: [{ message: 'The document exceeds the aliases limit.', extensions: { code: 'QUERY_TOO_COMPLEX' } }] });
    expect((await run('{ __schema { queryType { name } } }')).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  it('refuses a subscription under a rule at subscribe, and delivers each event with what depends on each subscriber', async () => {
    const writer = await instance.member('subscriber-writer');
    const reader = await instance.member('subscriber-reader');
    const anonymous = openSocket(url);
    expect(codes(await anonymous.execute('subscription { noteAdded { text } }'))).toEqual(['UNAUTHENTICATED']);
    const notAccountant = openSocket(url, { connectionParams: { authorization: `Bearer ${reader.token}` } });
    expect(codes(await notAccountant.execute('subscription { ledgerChanged }'))).toEqual(['FORBIDDEN']);

    const sockets = [writer, reader].map((member) => openSocket(url, { connectionParams: { authorization: `Bearer ${member.token}` } }));
    await Promise.all(sockets.map((socket) => socket.connected));
    // The same document for both: its result is shared unless a resolver reads the caller (`mine` does).
    const subscriptions = sockets.map((socket) => socket.subscribe('subscription { noteAdded { text author { name } mine } }'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await run('mutation { addNote(text: "live") { id } }', bearer(writer.token));
    await Promise.all(subscriptions.map((subscription) => subscription.receivedCount(1)));
    expect(subscriptions[0]!.received).toEqual([{ data: { noteAdded: { text: 'live', author: { name: 'subscriber-writer' }, mine: true } } }]);
    expect(subscriptions[1]!.received).toEqual([{ data: { noteAdded: { text: 'live', author: { name: 'subscriber-writer' }, mine: false } } }]);
    await Promise.all([anonymous, notAccountant, ...sockets].map((socket) => socket.dispose()));
  });

  it('closes a socket on its path with 4403 when a claims change refuses its token', async () => {
    const member = await instance.member('promoted');
    const admin = await instance.member('role-admin', ['Admin']);
    const socket = openSocket(url, { connectionParams: { authorization: `Bearer ${member.token}` } });
    expect(await socket.execute('{ me }')).toEqual({ data: { me: String(member.user.id) } });
    const promote = await instance.app.inject({ method: 'POST', url: `/admin/users/${member.user.id}/roles`, headers: bearer(admin.token), payload: { role: 'Accountant' } });
    expect(promote.statusCode).toBe(204);
    expect((await socket.closedWithin(PROPAGATION_MS)).code).toBe(4403);
  });
});

describe('gatehouseGraphQL at registration', () => {
  it('needs the gatehouse plugin first, and says so', async () => {
    const app = Fastify();
    await expect(app.register(gatehouseGraphQL, { typeDefs: 'type Query { a: Int }' }).ready()).rejects.toThrow(/register the gatehouse plugin first/);
  });

  it('refuses a misspelt option and a limit that is no positive integer, in one sentence', async () => {
    const app = Fastify();
    app.decorate('gatehouse', {} as never);
    await expect(app.register(gatehouseGraphQL, { typedefs: 'type Query { a: Int }' } as never).ready()).rejects.toThrow('gatehouseGraphQL has no option "typedefs"; did you mean "typeDefs"?');
    const other = Fastify();
    other.decorate('gatehouse', {} as never);
    await expect(other.register(gatehouseGraphQL, { typeDefs: 'type Query { a: Int }', limits: { maxDepth: 0 } }).ready()).rejects.toThrow(
      'gatehouseGraphQL: maxDepth must be a positive integer.',
    );
    const third = Fastify();
    third.decorate('gatehouse', {} as never);
    await expect(third.register(gatehouseGraphQL, { typeDefs: 'type Query { a: Int }', maxSocketsPerIp: 0 }).ready()).rejects.toThrow(
      'gatehouseGraphQL: maxSocketsPerIp must be a positive integer.',
    );
  });

  it.each(sqlite)('takes the limits of a socket as options: a second socket of one user is closed with 4429 ($engine)', async (engine) => {
    const instance = await startTeamApp(await engine.createDatabaseUrl(), new TeamData(), { graphql: { maxSocketsPerUser: 1 } });
    try {
      const url = `${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}${TEAM_PATH}`;
      const member = await instance.member('one-socket');
      const first = openSocket(url, { connectionParams: { authorization: `Bearer ${member.token}` } });
      await first.connected;
      const second = openSocket(url, { connectionParams: { authorization: `Bearer ${member.token}` } });
      expect(await second.closedWithin(5_000)).toEqual({ code: 4429, reason: 'Too many sockets of this user' });
      expect(await first.execute('{ me }')).toEqual({ data: { me: String(member.user.id) } });
      await first.dispose();
    } finally {
      await instance.close();
      await engine.dropAll();
    }
  });

  it.each(sqlite)('refuses an @authorize that names an unknown policy, naming the field ($engine)', async (engine) => {
    const team = new TeamData();
    const typeDefs = 'directive @authorize(policy: String, roles: [String!]) on FIELD_DEFINITION | OBJECT\ntype Query { a: Int @authorize(policy: "Nonexistent") }';
    await expect(startTeamApp(await engine.createDatabaseUrl(), team, { graphql: { typeDefs, resolvers: {} } })).rejects.toThrow(
      'gatehouseGraphQL: Query.a: @authorize names an unknown policy "Nonexistent".',
    );
    await engine.dropAll();
  });
});

describe.each(sqlite)('trusted documents of an application on $engine', (engine) => {
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const listed = '{ members { name } }';

  it('runs only the documents of its trustedDocuments option, by hash or by text; anything else is 400 PERSISTED_QUERY_NOT_FOUND', async () => {
    const instance = await startTeamApp(await engine.createDatabaseUrl(), new TeamData(), { graphql: { trustedDocuments: { [sha256(listed)]: listed } } });
    try {
      const send = (payload: Record<string, unknown>) => instance.app.inject({ method: 'POST', url: TEAM_PATH, payload });
      expect((await send({ query: listed })).statusCode).toBe(200);
      expect((await send({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(listed) } } })).statusCode).toBe(200);
      const other = await send({ query: '{ members { name email } }' });
      expect(other.statusCode).toBe(400);
      expect(codes(json<Received>(other))).toEqual(['PERSISTED_QUERY_NOT_FOUND']);
    } finally {
      await instance.close();
    }
  });

  it('refuses at registration a manifest whose key is not its document\'s hash, or a document that cannot run on the schema', async () => {
    await expect(startTeamApp(await engine.createDatabaseUrl(), new TeamData(), { graphql: { trustedDocuments: { [sha256('{ a }')]: listed } } })).rejects.toThrow(
      `gatehouseGraphQL: trustedDocuments must be {"<sha256>": "<document>"}: ${sha256('{ a }')} is not the SHA-256 of its document.`,
    );
    await expect(startTeamApp(await engine.createDatabaseUrl(), new TeamData(), { graphql: { trustedDocuments: { [sha256('{ nothing }')]: '{ nothing }' } } })).rejects.toThrow(
      `gatehouseGraphQL: the trusted document ${sha256('{ nothing }')} cannot run: Cannot query field "nothing" on type "Query".`,
    );
    await engine.dropAll();
  });
});

describe.each(sqlite)('a graphql-js schema with rules as extensions on $engine', (engine) => {
  let instance: TeamApp;

  beforeAll(async () => {
    const vault = new GraphQLObjectType({
      name: 'Vault',
      extensions: { authorize: { policy: 'User' } },
      fields: { content: { type: GraphQLString, resolve: () => 'gold' } },
    });
    const query = new GraphQLObjectType({
      name: 'Query',
      fields: {
        open: { type: GraphQLString, resolve: () => 'open' },
        secret: { type: GraphQLString, extensions: { authorize: { roles: ['Admin'] } }, resolve: () => 'for admins' },
        vault: { type: vault, resolve: () => ({}) },
      },
    });
    instance = await startTeamApp(await engine.createDatabaseUrl(), new TeamData(), { graphql: { schema: new GraphQLSchema({ query }), typeDefs: undefined, resolvers: undefined } });
  });
  afterAll(async () => {
    await instance?.close();
    await engine.dropAll();
  });

  const run = async (query: string, headers: Record<string, string> = {}) =>
    json<Received>(await instance.app.inject({ method: 'POST', url: TEAM_PATH, headers, payload: { query } }));

  it('checks the rule of a field and of a type, by the same policies', async () => {
    const user = await instance.member('js-user');
    const admin = await instance.member('js-admin', ['Admin']);
    const anonymous = await run('{ open secret vault { content } }');
    expect(anonymous.data).toEqual({ open: 'open', secret: null, vault: { content: null } });
    expect(codes(anonymous)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    const asUser = await run('{ secret vault { content } }', bearer(user.token));
    expect(asUser.data).toEqual({ secret: null, vault: { content: 'gold' } });
    expect(codes(asUser)).toEqual(['FORBIDDEN']);
    expect(await run('{ secret vault { content } }', bearer(admin.token))).toEqual({ data: { secret: 'for admins', vault: { content: 'gold' } } });
  });
});

describe.skipIf(!withRedis).each(sqlite)('application events through Redis across two instances on $engine', (engine) => {
  const team = new TeamData();
  const instances: TeamApp[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    const databaseUrl = await engine.createDatabaseUrl();
    for (let i = 0; i < 2; i++) {
      // A channel prefix of this run's own, so that other test files' events never arrive here.
      const events = createEvents<TeamTopics>({ redisUrl, channelPrefix: `gatehouse-test:${process.pid}:` });
      const instance = await startTeamApp(databaseUrl, team, { events });
      instances.push(instance);
      urls.push(`${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}${TEAM_PATH}`);
    }
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await engine.dropAll();
  });

  it('delivers a note added on either instance to the subscribers of both, once each, and the ledger to accountants', async () => {
    const [one, two] = instances as [TeamApp, TeamApp];
    const writer = await one.member('redis-writer');
    const accountant = await two.member('redis-accountant', ['Accountant']);
    const sockets = urls.map((url) => openSocket(url, { connectionParams: { authorization: `Bearer ${accountant.token}` } }));
    await Promise.all(sockets.map((socket) => socket.connected));
    const notes = sockets.map((socket) => socket.subscribe('subscription { noteAdded { text author { name } } }'));
    const ledgers = sockets.map((socket) => socket.subscribe('subscription { ledgerChanged }'));
    await new Promise((resolve) => setTimeout(resolve, 300));

    const add = async (instance: TeamApp, text: string) =>
      expect(json(await instance.app.inject({ method: 'POST', url: TEAM_PATH, headers: bearer(writer.token), payload: { query: `mutation { addNote(text: "${text}") { id } }` } })).errors).toBeUndefined();
    await add(two, 'from two');
    await add(one, 'from one');
    await Promise.all([...notes, ...ledgers].map((subscription) => subscription.receivedCount(2)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const subscription of notes) {
      expect(subscription.received).toEqual([
        { data: { noteAdded: { text: 'from two', author: { name: 'redis-writer' } } } },
        { data: { noteAdded: { text: 'from one', author: { name: 'redis-writer' } } } },
      ]);
    }
    for (const subscription of ledgers) expect(subscription.received).toEqual([{ data: { ledgerChanged: 100 } }, { data: { ledgerChanged: 200 } }]);
    await Promise.all(sockets.map((socket) => socket.dispose()));
  });
});
