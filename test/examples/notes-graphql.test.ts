/**
 * The notes-graphql example (examples/notes-graphql), driven as its users would: people taking
 * tokens from Gatehouse under `/identity` and calling the board's schema over HTTP and graphql-ws,
 * a lead, a stranger to a note, anonymous callers and an integration's API key. Its GraphQL does
 * not depend on the database engine: SQLite only. With Redis, two instances share the events.
 * Then its TypeScript program is compiled (a misspelt policy name must not compile) and `main.ts`
 * is run as a process.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { configFromSettings } from 'gatehouse-auth/fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildNotesApp, GRAPHQL_PATH, IDENTITY_PREFIX } from '../../examples/notes-graphql/app.ts';
import { LEAD_ROLE } from '../../examples/notes-graphql/policies.ts';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket, type Received } from '../helpers/graphql-socket.ts';
import { runNode, spawnNode, useProcessCleanup } from '../helpers/processes.ts';

const sqlite = (await testEngines()).filter((engine) => engine.engine === 'sqlite');
const withRedis = await redisAvailable();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PUBLIC_URL = 'http://notes.test';
const PASSWORD = 'an uncommon passphrase for notes';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = <T = Record<string, unknown>>(response: LightMyRequestResponse) => JSON.parse(response.body) as T;
const codes = (received: Received) => (received.errors ?? []).map((error) => error.extensions?.code);

interface Person {
  readonly id: number;
  readonly email: string;
  readonly token: string;
}

/** One instance of the example, listening (for sockets), with people made through Gatehouse. */
function useNotesApp(settings: () => { databaseUrl: string; redisUrl?: string }) {
  let people = 0;
  const instance = {
    app: undefined as unknown as FastifyInstance,
    socketUrl: '',
    async start() {
      instance.app = await buildNotesApp({ config: configFromSettings({ publicUrl: PUBLIC_URL, ...settings() }) });
      instance.socketUrl = `${(await instance.app.listen({ host: '127.0.0.1', port: 0 })).replace('http', 'ws')}${GRAPHQL_PATH}`;
    },
    /** A person created through Gatehouse's user manager, with a token from `/identity/auth/token`. */
    async person(roles: string[] = []): Promise<Person> {
      const email = `notes${++people}-${process.pid}-${Date.now()}@example.com`;
      const user = await instance.app.gatehouse.users.create({ email, password: PASSWORD, emailConfirmed: true, roles });
      const response = await instance.app.inject({ method: 'POST', url: `${IDENTITY_PREFIX}/auth/token`, payload: { email, password: PASSWORD } });
      expect(response.statusCode).toBe(200);
      return { id: user.id, email, token: json<{ accessToken: string }>(response).accessToken };
    },
    post(query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) {
      return instance.app.inject({ method: 'POST', url: GRAPHQL_PATH, headers, payload: { query, ...(variables ? { variables } : {}) } });
    },
    async run(query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>): Promise<Received> {
      const response = await instance.post(query, headers, variables);
      expect(response.statusCode).toBe(200);
      return json<Received>(response);
    },
  };
  return instance;
}

const ADD_NOTE = 'mutation Add($text: String!, $remarks: String) { addNote(text: $text, privateRemarks: $remarks) { id authorId text privateRemarks } }';

describe.each(sqlite)('the notes-graphql example on $engine', (engine) => {
  let databaseUrl: string;
  const notes = useNotesApp(() => ({ databaseUrl }));

  beforeAll(async () => {
    databaseUrl = await engine.createDatabaseUrl();
    await notes.start();
  });
  afterAll(async () => {
    await notes.app?.close();
    await engine.dropAll();
  });

  async function addNote(person: Person, text: string, remarks: string | null = null): Promise<{ id: string; authorId: string }> {
    const added = await notes.run(ADD_NOTE, bearer(person.token), { text, remarks });
    expect(added.errors).toBeUndefined();
    return added.data!.addNote as { id: string; authorId: string };
  }

  it('serves Gatehouse’s tokens under /identity only, and the schema at /graphql', async () => {
    const person = await notes.person();
    expect((await notes.app.inject({ method: 'POST', url: '/auth/token', payload: { email: person.email, password: PASSWORD } })).statusCode).toBe(404);
    expect(await notes.run('{ notes { id } }', bearer(person.token))).toEqual({ data: { notes: expect.any(Array) } });
  });

  it('shows a note’s private remarks to its author only: FORBIDDEN for another member, UNAUTHENTICATED for nobody', async () => {
    const author = await notes.person();
    const colleague = await notes.person();
    const note = await addNote(author, 'Standup moves to 9:30', 'because of the school run');
    expect(note.authorId).toBe(String(author.id));
    const query = 'query One($id: ID!) { note(id: $id) { text privateRemarks } }';

    expect(await notes.run(query, bearer(author.token), { id: note.id })).toEqual({
      data: { note: { text: 'Standup moves to 9:30', privateRemarks: 'because of the school run' } },
    });
    const asColleague = await notes.run(query, bearer(colleague.token), { id: note.id });
    expect(asColleague.data).toEqual({ note: { text: 'Standup moves to 9:30', privateRemarks: null } });
    expect(asColleague.errors).toMatchObject([{ path: ['note', 'privateRemarks'], extensions: { code: 'FORBIDDEN' } }]);
    // In a list, each note is its own resource: the colleague reads their own remarks only.
    const mine = await addNote(colleague, 'Lunch on Friday', 'my treat');
    const listed = await notes.run('{ notes { id privateRemarks } }', bearer(colleague.token));
    const remarks = Object.fromEntries((listed.data!.notes as { id: string; privateRemarks: string | null }[]).map((item) => [item.id, item.privateRemarks]));
    expect(remarks).toMatchObject({ [note.id]: null, [mine.id]: 'my treat' });
    expect(new Set(codes(listed))).toEqual(new Set(['FORBIDDEN']));

    const anonymous = await notes.run(query, {}, { id: note.id });
    expect(anonymous).toMatchObject({ data: { note: null }, errors: [{ path: ['note'], extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('keeps the board’s figures for leads: FORBIDDEN for a member, UNAUTHENTICATED for nobody', async () => {
    const lead = await notes.person([LEAD_ROLE]);
    const member = await notes.person();
    await addNote(member, 'Figures please');
    const stats = await notes.run('{ stats { notes authors } }', bearer(lead.token));
    expect(stats.errors).toBeUndefined();
    expect(stats.data!.stats).toEqual({ notes: expect.any(Number), authors: expect.any(Number) });
    expect((stats.data!.stats as { notes: number }).notes).toBeGreaterThanOrEqual(1);
    expect(await notes.run('{ stats { notes } }', bearer(member.token))).toMatchObject({ data: { stats: null }, errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    expect(codes(await notes.run('{ stats { authors } }'))).toEqual(['UNAUTHENTICATED']);
  });

  it('lets members add notes, refuses nobody and an API key, checks the input, and lets only the author delete', async () => {
    const author = await notes.person();
    const other = await notes.person();
    const anonymous = await notes.run(ADD_NOTE, {}, { text: 'from nobody' });
    expect(anonymous).toMatchObject({ data: null, errors: [{ path: ['addNote'], extensions: { code: 'UNAUTHENTICATED' } }] });
    // An API key is authenticated but stands for no person: `Members` refuses it.
    const key = await notes.app.gatehouse.apiKeys.create('crm');
    expect(codes(await notes.run(ADD_NOTE, { 'x-api-key': key }, { text: 'from a robot' }))).toEqual(['FORBIDDEN']);
    expect(codes(await notes.run(ADD_NOTE, bearer(author.token), { text: '   ' }))).toEqual(['BAD_USER_INPUT']);

    const note = await addNote(author, 'Delete me later');
    const remove = 'mutation Remove($id: ID!) { deleteNote(id: $id) }';
    expect(await notes.run(remove, bearer(other.token), { id: note.id })).toMatchObject({ data: null, errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    expect(await notes.run(remove, bearer(author.token), { id: note.id })).toEqual({ data: { deleteNote: true } });
    expect(codes(await notes.run(remove, bearer(author.token), { id: note.id }))).toEqual(['NOT_FOUND']);
    expect(await notes.run('query One($id: ID!) { note(id: $id) { id } }', bearer(author.token), { id: note.id })).toEqual({ data: { note: null } });
  });

  it('delivers a note added by the mutation to each subscriber over graphql-ws, its remarks to its author only', async () => {
    const author = await notes.person();
    const colleague = await notes.person();
    const anonymous = openSocket(notes.socketUrl);
    const sockets = [author, colleague].map((person) => openSocket(notes.socketUrl, { connectionParams: { authorization: `Bearer ${person.token}` } }));
    try {
      expect(codes(await anonymous.execute('subscription { noteAdded { text } }'))).toEqual(['UNAUTHENTICATED']);
      await Promise.all(sockets.map((socket) => socket.connected));
      const subscriptions = sockets.map((socket) => socket.subscribe('subscription { noteAdded { text authorId privateRemarks } }'));
      // The subscriptions are registered once the server has the subscribe message: give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await addNote(author, 'Release on Thursday', 'if QA agrees');
      await Promise.all(subscriptions.map((subscription) => subscription.receivedCount(1)));
      expect(subscriptions[0]!.received).toEqual([{ data: { noteAdded: { text: 'Release on Thursday', authorId: String(author.id), privateRemarks: 'if QA agrees' } } }]);
      expect(subscriptions[1]!.received).toMatchObject([
        { data: { noteAdded: { text: 'Release on Thursday', authorId: String(author.id), privateRemarks: null } }, errors: [{ extensions: { code: 'FORBIDDEN' } }] },
      ]);
    } finally {
      await Promise.all([anonymous, ...sockets].map((socket) => socket.dispose()));
    }
  });
});

describe.runIf(withRedis).each(sqlite)('the notes-graphql example with REDIS_URL on $engine', (engine) => {
  let databaseUrl: string;
  const settings = () => ({ databaseUrl, redisUrl });
  const first = useNotesApp(settings);
  const second = useNotesApp(settings);

  beforeAll(async () => {
    databaseUrl = await engine.createDatabaseUrl();
    await first.start();
    await second.start();
  });
  afterAll(async () => {
    await Promise.all([first.app?.close(), second.app?.close()]);
    await engine.dropAll();
  });

  it('delivers a note added on one instance to a subscriber of the other', async () => {
    const writer = await first.person();
    const socket = openSocket(second.socketUrl, { connectionParams: { authorization: `Bearer ${writer.token}` } });
    try {
      await socket.connected;
      const subscription = socket.subscribe('subscription { noteAdded { text privateRemarks } }');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const added = await first.run(ADD_NOTE, bearer(writer.token), { text: 'Across instances', remarks: 'through Redis' });
      expect(added.errors).toBeUndefined();
      await subscription.receivedCount(1);
      expect(subscription.received).toEqual([{ data: { noteAdded: { text: 'Across instances', privateRemarks: 'through Redis' } } }]);
    } finally {
      await socket.dispose();
    }
  });
});

describe('the notes-graphql example as a program', () => {
  useProcessCleanup();

  it('compiles as a TypeScript program of its own, where a misspelt policy name is a compile error', { timeout: 180_000 }, async () => {
    // typed-policies.check.ts marks each misspelt name with @ts-expect-error: the build fails if one compiles.
    // One program, checked and listed (--listFiles): the check covers that file.
    const checked = await runNode(['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'examples/notes-graphql', '--listFiles'], {}, 150_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/examples\/notes-graphql\/typed-policies\.check\.ts/);
  });

  it('runs main.ts and answers GraphQL over HTTP', async () => {
    const [engine] = sqlite;
    const databaseUrl = await engine!.createDatabaseUrl();
    try {
      const handle = spawnNode(['--conditions=gatehouse-source', '--import', 'tsx', 'examples/notes-graphql/main.ts'], {
        DATABASE_URL: databaseUrl,
        PORT: '0',
        NODE_ENV: 'development',
      });
      const line = await handle.waitForLine(/Notes listening on http:\/\//);
      const url = /Notes listening on (http:\/\/[^\s"]+)/.exec(line)![1]!;
      const answer = await fetch(`${url}${GRAPHQL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ stats { notes } }' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ data: { stats: null }, errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
      // Gatehouse answers under /identity: a person it does not know is refused there, not a 404.
      const token = await fetch(`${url}${IDENTITY_PREFIX}/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: PASSWORD }),
      });
      expect(token.status).toBe(401);
      expect((await handle.stop()).code).toBe(0);
    } finally {
      await engine!.dropAll();
    }
  });
});
