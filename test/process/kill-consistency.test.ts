/**
 * A service process killed outright (SIGKILL) in the middle of writes loses nothing it
 * acknowledged and leaves nothing half-written (docs/reference/persistence.md: a write committed
 * or did not). Each round drives concurrent refresh-token rotations, registrations, two-factor
 * enables and `createPost` mutations, records every request answered 2xx, kills the process while
 * requests are under way, and then reads the database directly and through a new process on it.
 * Several rounds on one database per engine: each later round starts on what a kill left.
 *
 * A second instance on the same database and Redis stays up throughout, with a `postCreated`
 * subscriber connected to it across every kill and restart: each post has its event in the
 * outbox, and the subscriber gets every post's event exactly once (published by the killed
 * instance before it died, or afterwards by an outbox relay), none twice.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, type ExpectStatic, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket, type Subscription } from '../helpers/graphql-socket.ts';
import { freePort, startService, useProcessCleanup, waitUntil } from '../helpers/processes.ts';
import { totpCode } from '../helpers/totp.ts';
import { privateRedis } from '../helpers/redis-server.ts';
import { queryRows } from './database.ts';

const engines = await testEngines();

const ROUNDS = 2;
const PASSWORD = 'amber-quarry-window-83';
/** Rotation chains, users turning two-factor on, and loops of registrations and posts, per round. */
const CHAINS = 2;
const ENABLERS = 4;
const REGISTRATION_LOOPS = 2;
const POST_LOOPS = 2;
/** Acknowledged writes of each kind before the kill: the kill lands with requests of each kind under way. */
const BEFORE_KILL = { rotations: 8, registrations: 3, enables: 2, posts: 8 } as const;

useProcessCleanup({ afterEachTest: false });

interface Acknowledged {
  rotations: number;
  registrations: string[];
  enables: number[];
  posts: { id: number; title: string; authorId: number }[];
}

interface Chain {
  readonly userId: number;
  /** The refresh token of the last acknowledged rotation (or of the sign-in). */
  current: string;
  /** A rotation of `current` was sent and not answered when the process died. */
  unanswered: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function post<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

/** A registered user signed in with `POST /auth/token`. */
async function signedInUser(url: string, email: string): Promise<{ userId: number; accessToken: string; refreshToken: string }> {
  const registered = await post(`${url}/account/register`, { email, password: PASSWORD });
  if (registered.status !== 202) throw new Error(`register answered ${registered.status}`);
  const token = await post<{ accessToken: string; refreshToken: string }>(`${url}/auth/token`, { email, password: PASSWORD });
  if (token.status !== 200) throw new Error(`/auth/token answered ${token.status}`);
  const sub = (JSON.parse(Buffer.from(token.body.accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }).sub;
  return { userId: Number(sub), ...token.body };
}

/**
 * Runs `step` again and again until it has nothing more to do or a request fails; answers why it
 * stopped. A killed process fails the request under way with a TypeError (fetch's "fetch failed",
 * or "terminated" for a body cut short); anything else is a wrong answer.
 */
async function repeat(step: () => Promise<boolean | void>): Promise<unknown> {
  for (;;) {
    try {
      if ((await step()) === false) return undefined;
    } catch (error) {
      return error;
    }
  }
}

// The engines' rounds run side by side; within one engine they follow each other on one database.
describe.concurrent.each(engines)('a SIGKILLed service on $engine', (engine) => {
  afterAll(() => engine.dropAll());

  it(`loses no acknowledged write and leaves the store consistent, ${ROUNDS} rounds`, { timeout: 240_000 }, async ({ expect, onTestFinished }) => {
    const databaseUrl = await engine.createDatabaseUrl();
    const redis = privateRedis(await freePort());
    await redis.start();
    onTestFinished(() => redis.stop());
    const env = {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      KEYRING_SECRET: undefined,
      REDIS_URL: redis.url,
      REQUIRE_CONFIRMED_EMAIL: 'false',
      RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
      RATE_LIMIT_IP_PER_MINUTE: '0',
    };

    // Each round's service is the process started on what the previous round's kill left.
    let service = await startService(env);
    // The instance that is never killed, and a subscriber on it through every round.
    const witness = await startService(env);
    const watcher = await signedInUser(witness.url, `watcher-${process.pid}@example.com`);
    const socket = openSocket(`${witness.url.replace('http', 'ws')}/graphql`, { connectionParams: { authorization: `Bearer ${watcher.accessToken}` } });
    onTestFinished(() => socket.dispose());
    await socket.connected;
    const announced = socket.subscribe('subscription { postCreated { id title } }');
    await subscribed(witness.url, watcher.accessToken, announced);
    for (let round = 1; round <= ROUNDS; round++) {
      const tag = `r${round}-${process.pid}`;

      // Users made before the load: token chains, and users with an authenticator pending.
      const { url } = service;
      const chains: Chain[] = await Promise.all(
        Array.from({ length: CHAINS }, async (_, i) => {
          const user = await signedInUser(url, `chain-${i}-${tag}@example.com`);
          return { userId: user.userId, current: user.refreshToken, unanswered: false };
        }),
      );
      const poster = await signedInUser(url, `poster-${tag}@example.com`);
      const enablers = await Promise.all(
        Array.from({ length: ENABLERS }, async (_, i) => {
          const user = await signedInUser(url, `enabler-${i}-${tag}@example.com`);
          const pending = await post<{ sharedKey: string }>(`${url}/account/2fa/authenticator`, {}, { authorization: `Bearer ${user.accessToken}` });
          expect(pending.status).toBe(200);
          return { userId: user.userId, accessToken: user.accessToken, sharedKey: pending.body.sharedKey };
        }),
      );

      const acknowledged: Acknowledged = { rotations: 0, registrations: [], enables: [], posts: [] };
      const attemptedPosts = new Set<string>();
      let serial = 0;

      const rotate = (chain: Chain) => async () => {
        chain.unanswered = true;
        const answer = await post<{ refreshToken: string }>(`${url}/auth/refresh`, { refreshToken: chain.current });
        expect(answer.status).toBe(200);
        chain.current = answer.body.refreshToken;
        chain.unanswered = false;
        acknowledged.rotations++;
      };
      const register = async () => {
        const email = `new-${serial++}-${tag}@example.com`;
        const answer = await post(`${url}/account/register`, { email, password: PASSWORD });
        expect(answer.status).toBe(202);
        acknowledged.registrations.push(email);
      };
      const createPost = async () => {
        const title = `post ${serial++} ${tag}`;
        attemptedPosts.add(title);
        const answer = await createPostAs(url, poster.accessToken, title);
        expect(answer.status).toBe(200);
        acknowledged.posts.push({ id: Number(answer.body.data.createPost.id), title, authorId: poster.userId });
      };
      let nextEnabler = 0;
      const enable = async () => {
        const user = enablers[nextEnabler++];
        if (user === undefined) return false;
        const answer = await post(`${url}/account/2fa/enable`, { code: totpCode(user.sharedKey) }, { authorization: `Bearer ${user.accessToken}` });
        expect(answer.status).toBe(200);
        acknowledged.enables.push(user.userId);
        return true;
      };

      const load = [
        ...chains.map((chain) => repeat(rotate(chain))),
        ...Array.from({ length: REGISTRATION_LOOPS }, () => repeat(register)),
        ...Array.from({ length: POST_LOOPS }, () => repeat(createPost)),
        repeat(enable),
      ];
      await waitUntil(
        () =>
          acknowledged.rotations >= BEFORE_KILL.rotations &&
          acknowledged.registrations.length >= BEFORE_KILL.registrations &&
          acknowledged.enables.length >= BEFORE_KILL.enables &&
          acknowledged.posts.length >= BEFORE_KILL.posts,
        { timeoutMs: 30_000, intervalMs: 20, what: 'writes of each kind to be acknowledged' },
      );
      service.handle.child.kill('SIGKILL');
      expect((await service.handle.exited).signal).toBe('SIGKILL');
      for (const stopped of await Promise.all(load)) {
        if (stopped !== undefined && !(stopped instanceof TypeError)) throw stopped;
      }

      await expectAcknowledgedWrites(databaseUrl, acknowledged, attemptedPosts, tag, expect);
      await expectConsistentStore(databaseUrl, expect);
      if (engine.engine === 'sqlite') {
        expect(await queryRows(databaseUrl, 'pragma integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      }

      // A new process on what the kill left: each chain's acknowledged token still rotates, unless
      // its unanswered rotation committed, in which case it is refused as a reused token is.
      service = await startService(env);
      for (const chain of chains) {
        const [token] = await queryRows<{ id: number; used_at: number | null }>(databaseUrl, 'select id, used_at from refresh_tokens where token_hash = $1', [sha256(chain.current)]);
        expect(token).toBeDefined();
        const answer = await post(`${service.url}/auth/refresh`, { refreshToken: chain.current });
        if (token!.used_at === null) {
          expect(answer.status).toBe(200);
        } else {
          // Only the rotation the kill cut short may have used it, and it left exactly one successor.
          expect(chain.unanswered).toBe(true);
          expect(await queryRows(databaseUrl, 'select id from refresh_tokens where parent_id = $1', [token!.id])).toHaveLength(1);
          expect(answer.status).toBe(401);
        }
      }
      const lastRegistered = acknowledged.registrations.at(-1)!;
      expect((await post(`${service.url}/auth/token`, { email: lastRegistered, password: PASSWORD })).status).toBe(200);

      await expectEveryPostAnnouncedOnce(databaseUrl, announced, expect);
    }
    // SIGTERM after all that: a clean drain.
    expect((await service.stop()).code).toBe(0);
    expect((await witness.stop()).code).toBe(0);
  });
});

/** Creates a post through `url` as the holder of `accessToken`. */
function createPostAs(url: string, accessToken: string, title: string) {
  return post<{ data: { createPost: { id: string } } }>(
    `${url}/graphql`,
    { query: 'mutation ($title: String!) { createPost(title: $title, body: "body") { id } }', variables: { title } },
    { authorization: `Bearer ${accessToken}` },
  );
}

/** Waits until `subscription` is live on the server: a post made after it subscribed reaches it. */
async function subscribed(url: string, accessToken: string, subscription: Subscription): Promise<void> {
  let probes = 0;
  await waitUntil(
    async () => {
      if (subscription.received.length > 0) return true;
      const answer = await createPostAs(url, accessToken, `probe ${probes++}`);
      if (answer.status !== 200) throw new Error(`createPost answered ${answer.status}`);
      return false;
    },
    { timeoutMs: 10_000, intervalMs: 200, what: 'the subscriber to receive a post' },
  );
}

/**
 * Each post has its one `postCreated` event in the outbox; within a bound (the relays of the
 * instances running wait a few seconds, then publish what the kill left) every event is marked
 * published and has reached the subscriber, and no event reached it twice.
 */
async function expectEveryPostAnnouncedOnce(databaseUrl: string, subscription: Subscription, expect: ExpectStatic): Promise<void> {
  const postIds = async () => (await queryRows<{ id: number }>(databaseUrl, 'select id from posts')).map((row) => Number(row.id));
  const receivedIds = () => subscription.received.map((message) => Number((message.data?.postCreated as { id: string } | undefined)?.id));
  await waitUntil(
    async () => {
      const unpublished = await queryRows(databaseUrl, 'select id from event_outbox where published_at is null');
      const received = new Set(receivedIds());
      return unpublished.length === 0 && (await postIds()).every((id) => received.has(id));
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'every post’s event to be published and to reach the subscriber' },
  );
  const events = await queryRows<{ topic: string; payload: string }>(databaseUrl, 'select topic, payload from event_outbox');
  const announcedPosts = events.map((event) => ({ topic: event.topic, id: (JSON.parse(event.payload) as { id: number }).id }));
  const ids = await postIds();
  expect(announcedPosts.map((event) => event.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(announcedPosts.map((event) => event.topic))).toEqual(new Set(['postCreated']));
  expect(subscription.errors()).toBeUndefined();
  const received = receivedIds();
  expect(received.length, 'events received').toBe(new Set(received).size);
  expect([...received].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
}

async function expectAcknowledgedWrites(
  databaseUrl: string,
  acknowledged: Acknowledged,
  attemptedPosts: ReadonlySet<string>,
  tag: string,
  expect: ExpectStatic,
): Promise<void> {
  const users = await queryRows<{ id: number; normalized_email: string; password_hash: string | null; two_factor_enabled: number }>(
    databaseUrl,
    'select id, normalized_email, password_hash, two_factor_enabled from users',
  );
  const byEmail = new Map(users.map((user) => [user.normalized_email, user]));
  for (const email of acknowledged.registrations) {
    expect(byEmail.get(email), email).toBeDefined();
  }
  const byId = new Map(users.map((user) => [Number(user.id), user]));
  for (const userId of acknowledged.enables) expect(Number(byId.get(userId)?.two_factor_enabled), `user ${userId}`).toBe(1);

  const posts = await queryRows<{ id: number; title: string; author_id: number }>(databaseUrl, 'select id, title, author_id from posts');
  const postsById = new Map(posts.map((row) => [Number(row.id), row]));
  for (const acked of acknowledged.posts) {
    expect(postsById.get(acked.id)).toMatchObject({ title: acked.title });
    expect(Number(postsById.get(acked.id)?.author_id)).toBe(acked.authorId);
  }
  // Each mutation wrote its post once, and only mutations that were sent wrote one.
  const titles = posts.map((row) => row.title).filter((title) => title.endsWith(` ${tag}`));
  expect(new Set(titles).size).toBe(titles.length);
  expect(titles.every((title) => attemptedPosts.has(title))).toBe(true);
}

/** What no kill may leave, whatever was acknowledged. */
async function expectConsistentStore(databaseUrl: string, expect: ExpectStatic): Promise<void> {
  // Every user here signs in with a password; none was made without its hash.
  expect(await queryRows(databaseUrl, "select id from users where password_hash is null or password_hash = ''")).toEqual([]);
  // Two-factor is on exactly where its key is active and its ten recovery codes exist.
  const twoFactor = await queryRows<{ id: number; enabled: number; active: number; codes: number }>(
    databaseUrl,
    `select u.id, u.two_factor_enabled as enabled,
            (select count(*) from authenticator_keys k where k.user_id = u.id and k.active_key is not null) as active,
            (select count(*) from recovery_codes r where r.user_id = u.id) as codes
       from users u`,
  );
  for (const user of twoFactor) {
    const state = { enabled: Number(user.enabled), active: Number(user.active), codes: Number(user.codes) };
    expect(state, `user ${user.id}`).toEqual(state.enabled === 1 ? { enabled: 1, active: 1, codes: 10 } : { enabled: 0, active: 0, codes: 0 });
  }
  // Refresh families (docs/reference/tokens.md): one first token, each token rotated at most once,
  // within its family; a family not revoked has exactly one unused token (no half-done rotation).
  const families = await queryRows<{ id: number; revoked: number; tokens: number; roots: number; unused: number }>(
    databaseUrl,
    `select f.id, case when f.revoked_at is null then 0 else 1 end as revoked,
            (select count(*) from refresh_tokens t where t.family_id = f.id) as tokens,
            (select count(*) from refresh_tokens t where t.family_id = f.id and t.parent_id is null) as roots,
            (select count(*) from refresh_tokens t where t.family_id = f.id and t.used_at is null) as unused
       from refresh_families f`,
  );
  expect(families.length).toBeGreaterThan(0);
  for (const family of families) {
    expect(Number(family.roots), `family ${family.id}`).toBe(1);
    if (Number(family.revoked) === 0) expect(Number(family.unused), `family ${family.id}`).toBe(1);
  }
  expect(
    await queryRows(
      databaseUrl,
      `select t.id from refresh_tokens t
         left join refresh_tokens p on p.id = t.parent_id
        where t.parent_id is not null and (p.id is null or p.family_id <> t.family_id or p.used_at is null)`,
    ),
  ).toEqual([]);
  expect(await queryRows(databaseUrl, 'select parent_id from refresh_tokens where parent_id is not null group by parent_id having count(*) > 1')).toEqual([]);
}
