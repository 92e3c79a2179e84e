/**
 * Three instances of one deployment (docs/reference/persistence.md, docs/reference/tokens.md):
 * three service processes on one PostgreSQL database and one Redis, driven from outside over
 * HTTP and WebSocket. A credential issued by one is accepted by the others; a refresh token is
 * rotated once across all of them; lockout counts and rate limits add up across them; a key
 * rotated or revoked by the CLI reaches all three within 5 seconds; subscriptions fan out to
 * every instance, and an admin lock closes the user's sockets on every instance.
 *
 * Real processes: everything here happens between processes (Redis pub/sub, shared counters, the
 * key ring re-read from the database). One cluster serves a `describe`; its tests run in order.
 *
 * Redis is shared with other test files running at the same time, and the per-IP rate-limit
 * counters are keyed by the client's address alone: the instances run with `TRUST_PROXY=true` and
 * every rate-limited request here carries an `X-Forwarded-For` address of its own (`freshIp()`),
 * so no other file's traffic from 127.0.0.1 counts against this file's small limits (and the
 * reverse).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable, testEngines } from '../helpers/databases.ts';
import { openSocket, type Subscription, type TestSocket } from '../helpers/graphql-socket.ts';
import { type RunningService, useProcessCleanup } from '../helpers/processes.ts';
import { type Cluster, type ClusterUser, freshIp, startCluster } from '../helpers/service-cluster.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');
const withRedis = await redisAvailable();

/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
const POLL_INTERVAL_MS = 50;
const ACCOUNT_LIMIT = 6;
const IP_LIMIT = 12;
/** The default, LOCKOUT_MAX_ATTEMPTS. */
const LOCKOUT_MAX_ATTEMPTS = 5;
const CONCURRENT_REFRESHES = 50;

useProcessCleanup({ afterEachTest: false });

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Headers;
}

interface TokenPair {
  readonly accessToken: string;
  readonly refreshToken: string;
}

async function call(
  service: RunningService,
  path: string,
  { method = 'GET', body, headers = {}, ip }: { method?: string; body?: unknown; headers?: Record<string, string>; ip?: string } = {},
): Promise<Answer> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(ip === undefined ? {} : { 'x-forwarded-for': ip }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** `POST /auth/token`, from an address of its own unless one is given. */
function requestToken(service: RunningService, email: string, password: string, ip = freshIp()): Promise<Answer> {
  return call(service, '/auth/token', { method: 'POST', body: { email, password }, ip });
}

async function signIn(service: RunningService, user: ClusterUser): Promise<TokenPair> {
  const answer = await requestToken(service, user.email, user.password);
  if (answer.status !== 200) throw new Error(`POST /auth/token answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body) as TokenPair;
}

function refresh(service: RunningService, refreshToken: string): Promise<Answer> {
  return call(service, '/auth/refresh', { method: 'POST', body: { refreshToken } });
}

function pairOf(answer: Answer): TokenPair {
  return JSON.parse(answer.body) as TokenPair;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function me(service: RunningService, headers: Record<string, string>): Promise<Answer> {
  return call(service, '/me', { headers });
}

function kidOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
}

async function jwksKids(service: RunningService): Promise<string[]> {
  const answer = await call(service, '/.well-known/jwks.json');
  return (JSON.parse(answer.body) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

/**
 * Resolves once `probe` holds; fails unless a probe that STARTED before `deadline` saw it hold
 * (one that started in time and answered later saw the instance as it was before the deadline).
 */
async function holdsBy(deadline: number, what: string, probe: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (Date.now() >= deadline) throw new Error(`not within ${PROPAGATION_MS} ms: ${what}`);
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

/** Resolves once `condition` holds, polling; fails after `ms` (a bound against hanging, not a measure). */
async function eventually(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() >= deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

function socketUrl(service: RunningService): string {
  return `${service.url.replace(/^http/, 'ws')}/graphql`;
}

async function createPost(service: RunningService, token: string, title: string): Promise<void> {
  const answer = await call(service, '/graphql', {
    method: 'POST',
    headers: bearer(token),
    body: { query: 'mutation($t: String!) { createPost(title: $t, body: "b") { id } }', variables: { t: title } },
  });
  expect(answer.status, answer.body).toBe(200);
  expect(JSON.parse(answer.body)).not.toHaveProperty('errors');
}

/** The `postCreated` titles a subscription has received, in order. */
function titles(subscription: Subscription): string[] {
  return subscription.received.map((result) => (result.data?.postCreated as { title: string } | undefined)?.title ?? '<no data>');
}

/**
 * Creates posts (titles `<tag> probe <n>`) until every subscription has received one: then the
 * server holds each subscription and its instance listens on Redis. A subscribe message has no
 * answer of its own that says so.
 */
async function untilSubscribed(subscriptions: readonly Subscription[], service: RunningService, token: string, tag: string): Promise<void> {
  const probe = `${tag} probe`;
  const allHaveOne = () => subscriptions.every((subscription) => titles(subscription).some((title) => title.startsWith(probe)));
  const deadline = Date.now() + 15_000;
  for (let n = 1; !allHaveOne(); n++) {
    if (Date.now() >= deadline) throw new Error('subscriptions not active within 15 s');
    await createPost(service, token, `${probe} ${n}`);
    // Half a second for this probe to arrive before the next one.
    const next = Date.now() + 500;
    while (Date.now() < next && !allHaveOne()) await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

const POST_CREATED = 'subscription { postCreated { title } }';

describe.skipIf(!postgres || !withRedis)('three service processes on one PostgreSQL database and one Redis', { timeout: 60_000 }, () => {
  let cluster: Cluster;
  let a: RunningService;
  let b: RunningService;
  let c: RunningService;
  const all = () => [a, b, c] as const;
  const sockets: TestSocket[] = [];
  let admin: ClusterUser;
  /** Users registered before the tests, side by side; a test takes what it needs. */
  let users: ClusterUser[];
  const someone = (): ClusterUser => {
    const user = users.pop();
    if (!user) throw new Error('more users taken than made in beforeAll');
    return user;
  };

  beforeAll(async () => {
    cluster = await startCluster(postgres!, 3, {
      RATE_LIMIT_ACCOUNT_PER_MINUTE: String(ACCOUNT_LIMIT),
      RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT),
    });
    [a, b, c] = cluster.services as [RunningService, RunningService, RunningService];
    [admin, users] = await Promise.all([cluster.addUser({ roles: ['Admin'] }), cluster.registerUsers(8)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.dispose()));
    await cluster?.stop();
  });

  function open(service: RunningService, token: string): TestSocket {
    const socket = openSocket(socketUrl(service), { connectionParams: { authorization: `Bearer ${token}` } });
    sockets.push(socket);
    return socket;
  }

  async function adminHeaders(): Promise<Record<string, string>> {
    return bearer((await signIn(a, admin)).accessToken);
  }

  it('a cookie session and a bearer token issued by one instance are accepted by the other two; a sign-out on one ends the session on all', async () => {
    const user = someone();
    const login = await call(a, '/account/login', { method: 'POST', body: { email: user.email, password: user.password }, ip: freshIp() });
    expect(login.status, login.body).toBe(200);
    const setCookie = login.headers.getSetCookie().find((line) => line.startsWith('gh.auth='));
    expect(setCookie).toBeDefined();
    const cookie = { cookie: setCookie!.split(';')[0]! };
    for (const service of all()) expect(await me(service, cookie)).toMatchObject({ status: 200, body: user.userName });

    const { accessToken } = await signIn(b, user);
    for (const service of all()) expect(await me(service, bearer(accessToken))).toMatchObject({ status: 200, body: user.userName });

    expect((await call(c, '/account/logout', { method: 'POST', headers: cookie })).status).toBe(204);
    const deadline = Date.now() + PROPAGATION_MS;
    await Promise.all(
      all().map((service) => holdsBy(deadline, `${service.url} to refuse the signed-out cookie`, async () => (await me(service, cookie)).status === 401)),
    );
    // The bearer token was not that session.
    expect((await me(a, bearer(accessToken))).status).toBe(200);
  });

  it('a refresh token rotated on one instance is refused as reuse on another, and its family ends: the successor is refused too', async () => {
    const user = someone();
    const first = await signIn(a, user);
    const rotated = await refresh(b, first.refreshToken);
    expect(rotated.status).toBe(200);
    const second = pairOf(rotated);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await me(c, bearer(second.accessToken))).status).toBe(200);

    const reused = await refresh(c, first.refreshToken);
    expect(reused).toMatchObject({ status: 401, body: '' });
    for (const service of all()) expect((await refresh(service, second.refreshToken)).status).toBe(401);
    // Refused as reuse, not as an unknown token: the instance that saw it says so in the audit.
    const audit = await call(a, '/admin/audit?limit=200', { headers: await adminHeaders() });
    const { events } = JSON.parse(audit.body) as { events: { type: string; userId: number | null }[] };
    expect(events.filter((event) => event.type === 'refresh.reuse' && event.userId === user.id)).toHaveLength(1);
  });

  it(`${CONCURRENT_REFRESHES} concurrent refreshes of one token over the three instances: exactly one 200, the others 401, and the winner's token is refused after`, async () => {
    const user = someone();
    const { refreshToken } = await signIn(c, user);
    const answers = await Promise.all(Array.from({ length: CONCURRENT_REFRESHES }, (_, i) => refresh(all()[i % 3]!, refreshToken)));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual(
      Array.from({ length: CONCURRENT_REFRESHES - 1 }, () => expect.objectContaining({ status: 401, body: '' })),
    );
    const successor = pairOf(winners[0]!).refreshToken;
    expect(successor).not.toBe(refreshToken);
    // The losers were reuse (no grace here): the family is over, the winner's new token included.
    for (const service of all()) expect((await refresh(service, successor)).status).toBe(401);
  });

  it(`lockout counts add up: ${LOCKOUT_MAX_ATTEMPTS} wrong passwords spread over the three lock the account on all of them`, async () => {
    const user = someone();
    const asAdmin = await adminHeaders();
    const lockedOut = async () => {
      const list = JSON.parse((await call(b, '/admin/users', { headers: asAdmin })).body) as { email: string; lockedOut: boolean }[];
      return list.find((entry) => entry.email === user.email)!.lockedOut;
    };
    // Each from an address of its own: the rate limits play no part here.
    const wrong = (service: RunningService) => requestToken(service, user.email, `${user.password} not`);
    for (const service of [a, b, c, a]) expect((await wrong(service)).status).toBe(401);
    // No instance has seen more than two failures; together they have seen four.
    expect(await lockedOut()).toBe(false);
    expect((await wrong(b)).status).toBe(401);
    expect(await lockedOut()).toBe(true);
    // The right password is refused now, everywhere, with the same answer as a wrong one.
    for (const service of all()) {
      const answer = await requestToken(service, user.email, user.password);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ succeeded: false });
      expect(JSON.parse(answer.body)).not.toHaveProperty('isLockedOut');
    }
  });

  it(`the per-account rate limit adds up: ${ACCOUNT_LIMIT} requests spread over the three, then 429 on each`, async () => {
    const ip = freshIp();
    const email = `nobody-${randomBytes(6).toString('hex')}@example.com`;
    for (let i = 0; i < ACCOUNT_LIMIT; i++) expect((await requestToken(all()[i % 3]!, email, 'a wrong password', ip)).status).toBe(401);
    for (const service of all()) {
      const answer = await requestToken(service, email, 'a wrong password', ip);
      expect(answer.status).toBe(429);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another account from the same address has its own budget.
    expect((await requestToken(a, `other-${email}`, 'a wrong password', ip)).status).toBe(401);
  });

  it(`the per-IP rate limit adds up: ${IP_LIMIT} requests from one address spread over the three, then 429 on each`, async () => {
    const ip = freshIp();
    const account = () => `nobody-${randomBytes(6).toString('hex')}@example.com`;
    for (let i = 0; i < IP_LIMIT; i++) expect((await requestToken(all()[i % 3]!, account(), 'a wrong password', ip)).status).toBe(401);
    for (const service of all()) expect((await requestToken(service, account(), 'a wrong password', ip)).status).toBe(429);
    // Another address is not limited.
    expect((await requestToken(b, account(), 'a wrong password', freshIp())).status).toBe(401);
  });

  it('subscriptions fan out: a subscriber on each instance receives a post created on any instance, exactly once', async () => {
    const user = someone();
    const { accessToken } = await signIn(a, user);
    const tag = `fan-out ${randomBytes(4).toString('hex')}`;
    const subscriptions = all().map((service) => open(service, accessToken).subscribe(POST_CREATED));
    await untilSubscribed(subscriptions, a, accessToken, tag);

    const created = [`${tag} from a`, `${tag} from b`, `${tag} from c`];
    await createPost(a, accessToken, created[0]!);
    await createPost(b, accessToken, created[1]!);
    await createPost(c, accessToken, created[2]!);
    // Every event reaches a subscriber through one Redis connection, in the order Redis took
    // them: once the last post has arrived, a second copy of an earlier one would be there too.
    const last = `${tag} last`;
    await createPost(b, accessToken, last);
    for (const [index, subscription] of subscriptions.entries()) {
      await eventually(`the subscriber on instance ${index + 1} to receive the last post`, () => titles(subscription).includes(last));
      const ours = titles(subscription).filter((title) => title.startsWith(tag) && !title.startsWith(`${tag} probe`));
      expect(ours, `subscriber on instance ${index + 1}`).toEqual([...created, last]);
    }
  });

  it('a user locked by an admin on one instance loses its open sockets on all three (4403), and no one else does', async () => {
    const [victim, bystander] = [someone(), someone()];
    const [victimToken, bystanderToken] = [(await signIn(b, victim)).accessToken, (await signIn(c, bystander)).accessToken];
    const asAdmin = await adminHeaders();
    const tag = `lock ${randomBytes(4).toString('hex')}`;
    const victimSockets = all().map((service) => open(service, victimToken));
    const bystanderSockets = all().map((service) => open(service, bystanderToken));
    const subscriptions = [...victimSockets, ...bystanderSockets].map((socket) => socket.subscribe(POST_CREATED));
    await untilSubscribed(subscriptions, a, bystanderToken, tag);

    const locked = await call(a, `/admin/users/${victim.id}/lock`, { method: 'POST', headers: asAdmin });
    const deadline = Date.now() + PROPAGATION_MS;
    expect(locked.status).toBe(204);
    const closes = await Promise.all(victimSockets.map((socket) => socket.closedWithin(Math.max(deadline - Date.now(), 0))));
    expect(closes.map((close) => close.code)).toEqual([4403, 4403, 4403]);

    // The other user's sockets stay open and go on receiving.
    const after = `${tag} after the lock`;
    await createPost(b, bystanderToken, after);
    for (const [index, socket] of bystanderSockets.entries()) {
      await eventually(`the bystander on instance ${index + 1} to receive the post`, () => titles(subscriptions[3 + index]!).includes(after));
      expect(socket.isClosed()).toBe(false);
    }
  });

  // Last: revoking the first key ends every token signed before.
  it('keys rotate by the CLI: within 5 s all three sign with the new key and accept its tokens; keys revoke of the old kid: within 5 s all three refuse the old tokens', async () => {
    const user = someone();
    const oldToken = (await signIn(a, user)).accessToken;
    const oldKid = kidOf(oldToken);

    const newKid = (await cluster.cli(['keys', 'rotate'])).trim();
    let deadline = Date.now() + PROPAGATION_MS;
    expect(newKid).not.toBe('');
    expect(newKid).not.toBe(oldKid);
    const newTokens = new Map<RunningService, string>();
    await Promise.all(
      all().map((service) =>
        holdsBy(deadline, `${service.url} to sign with the new key`, async () => {
          const token = (await signIn(service, user)).accessToken;
          if (kidOf(token) !== newKid) return false;
          newTokens.set(service, token);
          return true;
        }),
      ),
    );
    // Each new token on each instance; the superseded key still verifies.
    await Promise.all(
      [...newTokens.values(), oldToken].flatMap((token) =>
        all().map((service) => holdsBy(deadline, `${service.url} to accept a token`, async () => (await me(service, bearer(token))).status === 200)),
      ),
    );

    expect(await cluster.cli(['keys', 'revoke', '--kid', oldKid])).toBe('');
    deadline = Date.now() + PROPAGATION_MS;
    await Promise.all(
      all().map((service) => holdsBy(deadline, `${service.url} to refuse the old key's token`, async () => (await me(service, bearer(oldToken))).status === 401)),
    );
    for (const service of all()) {
      for (const token of newTokens.values()) expect((await me(service, bearer(token))).status).toBe(200);
      expect(await jwksKids(service)).toEqual([newKid]);
    }
  });
});

describe.skipIf(!postgres || !withRedis)('three service processes with a refresh reuse grace', { timeout: 60_000 }, () => {
  let cluster: Cluster;
  let users: ClusterUser[];
  const all = () => cluster.services;

  beforeAll(async () => {
    cluster = await startCluster(postgres!, 3, { REFRESH_REUSE_GRACE_SECONDS: '60' });
    users = await cluster.registerUsers(2);
  }, 90_000);
  afterAll(() => cluster?.stop());

  it(`${CONCURRENT_REFRESHES} concurrent refreshes of one token: one rotation, every caller gets the same successor pair, which rotates once more`, async () => {
    const user = users.pop()!;
    const { refreshToken } = await signIn(all()[0]!, user);
    const answers = await Promise.all(Array.from({ length: CONCURRENT_REFRESHES }, (_, i) => refresh(all()[i % 3]!, refreshToken)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: CONCURRENT_REFRESHES }, () => 200));
    const pairs = answers.map(pairOf);
    expect(new Set(pairs.map((pair) => pair.refreshToken)).size).toBe(1);
    expect(new Set(pairs.map((pair) => pair.accessToken)).size).toBe(1);
    const successor = pairs[0]!.refreshToken;
    expect(successor).not.toBe(refreshToken);
    expect((await refresh(all()[1]!, successor)).status).toBe(200);
  });

  it('a repeat of the predecessor on another instance within the window gets the same pair; once the successor is used, the predecessor is reuse and ends the family', async () => {
    const user = users.pop()!;
    const [a, b, c] = all() as [RunningService, RunningService, RunningService];
    const first = await signIn(a, user);
    const rotated = await refresh(b, first.refreshToken);
    expect(rotated.status).toBe(200);
    const repeated = await refresh(c, first.refreshToken);
    expect(repeated.status).toBe(200);
    expect(pairOf(repeated)).toEqual(pairOf(rotated));

    const third = await refresh(a, pairOf(rotated).refreshToken);
    expect(third.status).toBe(200);
    expect((await refresh(b, first.refreshToken)).status).toBe(401);
    for (const service of all()) expect((await refresh(service, pairOf(third).refreshToken)).status).toBe(401);
  });
});
