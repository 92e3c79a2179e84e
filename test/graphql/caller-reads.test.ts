/**
 * A query that depends on the caller, `{ me … posts … }`, is answered from reads kept while the
 * store is unchanged (server/posts/versioned-reads.ts, decision 0058). What is kept must never
 * outlive a write: not one by the same instance, not one by another instance on the same
 * database, not one made by hand on a connection of its own. Each answer after a write is asserted on the
 * very next request, with no waiting: a commit that finished before a request was sent is in its
 * answer. Two service processes over real sockets, on each store engine.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { freePort, runCli, type RunningService, startService, useProcessCleanup } from '../helpers/processes.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const PASSWORD = 'amber-quarry-window-83';

interface Answer {
  data?: { me: { id: string; userName: string | null; roles: string[] } | null; posts: { id: string; title: string }[] };
  errors?: unknown[];
}

async function signIn(service: RunningService, email: string): Promise<string> {
  const response = await fetch(`${service.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`POST /auth/token answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function graphql(service: RunningService, token: string, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
  });
  if (response.status !== 200) throw new Error(`POST /graphql answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Answer;
}

/** One statement on the database directly, on a connection of its own, bypassing the store. */
async function rawWrite(databaseUrl: string, statement: string): Promise<void> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { fileMustExist: true, timeout: 5_000 });
    try {
      if (db.prepare(statement).run().changes !== 1) throw new Error(`not one row changed: ${statement}`);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if ((await client.query(statement)).rowCount !== 1) throw new Error(`not one row changed: ${statement}`);
  } finally {
    await client.end();
  }
}

const VIEWER_AND_POSTS = '{ me { id userName roles } posts(first: 3) { id title } }';
const CREATE = 'mutation($title: String!) { createPost(title: $title, body: "b") { id } }';
const RENAME = 'mutation($id: ID!, $title: String!) { updatePost(id: $id, title: $title) { id } }';

// Once for the file: each engine's suite stops its own services, concurrently with the other's.
useProcessCleanup({ afterEachTest: false });

describe.concurrent.each(engines)('a query that depends on the caller, on $engine', (engine) => {
  let databaseUrl: string;
  let a: RunningService;
  let b: RunningService;
  const ann = `ann-${process.pid}@example.com`;
  const bob = `bob-${process.pid}@example.com`;

  beforeAll(async () => {
    databaseUrl = await engine.createDatabaseUrl();
    for (const [email, name] of [[ann, 'ann_reader'], [bob, 'bob_reader']] as const) {
      const added = await runCli(['users', 'add', '--email', email, '--password', PASSWORD, '--name', name, '--confirmed'], { DATABASE_URL: databaseUrl });
      if (added.code !== 0) throw new Error(added.stderr);
    }
    const common = { DATABASE_URL: databaseUrl, PUBLIC_URL, RATE_LIMIT_ACCOUNT_PER_MINUTE: '0', RATE_LIMIT_IP_PER_MINUTE: '0' };
    [a, b] = await Promise.all([startService({ ...common, PORT: String(await freePort()) }), startService({ ...common, PORT: String(await freePort()) })]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await engine.dropAll();
  });

  it('each caller gets their own viewer, and every write, wherever it is made, is in the next answer', { timeout: 120_000 }, async ({ expect }) => {
    const annToken = await signIn(a, ann);
    const bobToken = await signIn(a, bob);
    const first = await graphql(b, annToken, CREATE, { title: 'first' });
    expect(first.errors).toBeUndefined();

    // Asked twice each, so that a second answer could come from what the first one read.
    for (let i = 0; i < 2; i++) {
      const asAnn = await graphql(a, annToken, VIEWER_AND_POSTS);
      const asBob = await graphql(a, bobToken, VIEWER_AND_POSTS);
      expect(asAnn.data?.me?.userName).toBe('ann_reader');
      expect(asBob.data?.me?.userName).toBe('bob_reader');
      expect(asAnn.data?.me?.id).not.toBe(asBob.data?.me?.id);
      expect(asAnn.data?.posts.map((post) => post.title)).toEqual(['first']);
      expect(asBob.data?.posts).toEqual(asAnn.data?.posts);
    }

    // A post created on the other instance.
    expect((await graphql(b, bobToken, CREATE, { title: 'second' })).errors).toBeUndefined();
    expect((await graphql(a, annToken, VIEWER_AND_POSTS)).data?.posts.map((post) => post.title)).toEqual(['second', 'first']);

    // A post renamed on this instance.
    const id = (await graphql(a, annToken, VIEWER_AND_POSTS)).data!.posts[1]!.id;
    expect((await graphql(a, annToken, RENAME, { id, title: 'first, renamed' })).errors).toBeUndefined();
    expect((await graphql(a, bobToken, VIEWER_AND_POSTS)).data?.posts.map((post) => post.title)).toEqual(['second', 'first, renamed']);

    // Rows changed by hand on another connection, in this test's process: the next answers on
    // both instances have them, the renamed viewer and the renamed post, with no write of theirs
    // in between that could have emptied what they keep.
    expect((await graphql(a, annToken, VIEWER_AND_POSTS)).data?.me?.userName).toBe('ann_reader');
    expect((await graphql(b, annToken, VIEWER_AND_POSTS)).data?.me?.userName).toBe('ann_reader');
    await rawWrite(databaseUrl, "update users set user_name = 'ann_renamed' where user_name = 'ann_reader'");
    expect((await graphql(a, annToken, VIEWER_AND_POSTS)).data?.me?.userName).toBe('ann_renamed');
    expect((await graphql(b, annToken, VIEWER_AND_POSTS)).data?.me?.userName).toBe('ann_renamed');
    expect((await graphql(a, bobToken, VIEWER_AND_POSTS)).data?.me?.userName).toBe('bob_reader');
    await rawWrite(databaseUrl, "update posts set title = 'second, by hand' where title = 'second'");
    expect((await graphql(a, bobToken, VIEWER_AND_POSTS)).data?.posts.map((post) => post.title)).toEqual(['second, by hand', 'first, renamed']);
    expect((await graphql(b, bobToken, VIEWER_AND_POSTS)).data?.posts.map((post) => post.title)).toEqual(['second, by hand', 'first, renamed']);
  });
});
