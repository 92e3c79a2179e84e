// `node --import tsx bench/graphql-cold.ts [--postgres] [--requests N] [--rounds R]`: what the
// caller-dependent query `{ me { id } posts(first: 20) { id title } }` costs the service when it is
// not the bench's one repeated request (bench/README.md, "A query that depends on the caller").
//
// A seeding instance makes the posts and signs the users in, and is stopped; then a fresh instance
// on the same database answers, one request at a time over one kept-alive connection:
//   first    the first N requests after its start (nothing before them but `/health`);
//   warm     the same request N more times;
//   text     a query text it has not seen on every request (`query Q<n> { … }`);
//   token    a token it has not seen on every request, of ten users in turn;
//   write    a post created on another instance between every two requests (what is kept is dropped).
// Each phase reports the service's CPU time per request (user + system, every thread, from /proc),
// which a busy machine disturbs far less than requests/s, and the median latency. Rounds repeat the
// whole on a fresh instance; the median of each phase is printed, then every round.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ME_POSTS_QUERY } from './scenarios/graphql-me-posts.ts';
import { processCpuSeconds } from './lib/cpu-usage.ts';
import { freePort, gatehouseCli, obtainAccessToken, seedPosts, serviceArguments } from './lib/gatehouse.ts';
import { percentile } from './lib/percentile.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { startServer, stopAllChildren } from './lib/processes.ts';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const HOST = '127.0.0.1';
const USERS = 10;
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const postgres = args.includes('--postgres');
const requests = option('--requests', 300);
const rounds = option('--rounds', 3);

type Phase = 'first' | 'warm' | 'text' | 'token' | 'write';
const PHASES: readonly Phase[] = ['first', 'warm', 'text', 'token', 'write'];

const temporary = await mkdtemp(join(tmpdir(), 'gatehouse-cold-'));
const database = postgres ? await freshPostgresDatabase() : null;
const password = randomBytes(12).toString('base64url');
const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'development',
  HOST,
  DATABASE_URL: database?.url ?? `sqlite:${join(temporary, 'gatehouse.db')}`,
  KEYRING_SECRET: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'warn',
  // One issuer for every instance of the run: a token of one is accepted by the others.
  PUBLIC_URL: 'http://gatehouse.bench',
  ACCESS_TOKEN_MINUTES: '60',
  RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
  RATE_LIMIT_IP_PER_MINUTE: '0',
};
const emails = Array.from({ length: USERS }, (_, i) => `cold-${i}@example.test`);

async function start(name: string) {
  const port = await freePort(HOST);
  const server = await startServer({
    name,
    command: process.execPath,
    args: serviceArguments(root),
    env: { ...baseEnv, PORT: String(port) },
    cwd: root,
    cpu: null,
    readyUrl: `http://${HOST}:${port}/health`,
    timeoutMs: 60_000,
  });
  return { server, baseUrl: `http://${HOST}:${port}` };
}

/** An access token for each of `count` requests, none used before: refreshes of each user's family in turn. */
async function freshTokens(baseUrl: string, families: { refreshToken: string }[], count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const family = families[i % families.length]!;
    const response = await fetch(`${baseUrl}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken: family.refreshToken }) });
    if (response.status !== 200) throw new Error(`POST /auth/refresh answered ${response.status}`);
    const body = (await response.json()) as { accessToken: string; refreshToken: string };
    family.refreshToken = body.refreshToken;
    tokens.push(body.accessToken);
  }
  return tokens;
}

function post(agent: Agent, baseUrl: string, token: string, query: string): Promise<string> {
  const url = new URL('/graphql', baseUrl);
  const body = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { agent, host: url.hostname, port: url.port, method: 'POST', path: url.pathname, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if (response.statusCode !== 200 || text.includes('"errors"')) reject(new Error(`POST /graphql answered ${response.statusCode}: ${text.slice(0, 300)}`));
          else resolve(text);
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface PhaseResult {
  readonly cpuUsPerRequest: number;
  readonly p50Ms: number;
}

/** The service's CPU over the whole phase (what it did between requests included), per request. */
async function measure(pid: number, count: number, send: (i: number) => Promise<unknown>, between?: (i: number) => Promise<unknown>): Promise<PhaseResult> {
  const latencies: number[] = [];
  const before = processCpuSeconds(pid)!;
  for (let i = 0; i < count; i++) {
    if (between) await between(i);
    const started = performance.now();
    await send(i);
    latencies.push(performance.now() - started);
  }
  const cpu = processCpuSeconds(pid)! - before;
  latencies.sort((a, b) => a - b);
  return { cpuUsPerRequest: (cpu * 1e6) / count, p50Ms: percentile(latencies, 0.5) };
}

async function oneRound(): Promise<Record<Phase, PhaseResult>> {
  // The seeding instance: posts, sign-ins and the tokens of every phase, then stopped.
  const seeding = await start('seeding instance');
  const signIns = [];
  for (const email of emails) {
    const response = await fetch(`${seeding.baseUrl}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    signIns.push((await response.json()) as { accessToken: string; refreshToken: string });
  }
  const token = signIns[0]!.accessToken;
  const tokens = await freshTokens(seeding.baseUrl, signIns, requests);
  await seeding.server.stop();

  const fresh = await start('fresh instance');
  const writer = await start('writing instance');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const pid = fresh.server.pid;
  try {
    const send = (query: string, bearer = token) => post(agent, fresh.baseUrl, bearer, query);
    const first = await measure(pid, requests, () => send(ME_POSTS_QUERY));
    const warm = await measure(pid, requests, () => send(ME_POSTS_QUERY));
    const text = await measure(pid, requests, (i) => send(`query Q${i}_${randomBytes(3).toString('hex')} { me { id } posts(first: 20) { id title } }`));
    const tokenPhase = await measure(pid, requests, (i) => send(ME_POSTS_QUERY, tokens[i]!));
    const writerToken = await obtainAccessToken(writer.baseUrl, emails[1]!, password);
    const write = await measure(pid, requests, () => send(ME_POSTS_QUERY), () => seedPosts(writer.baseUrl, writerToken, 1));
    return { first, warm, text, token: tokenPhase, write };
  } finally {
    agent.destroy();
    await Promise.all([fresh.server.stop(), writer.server.stop()]);
  }
}

try {
  const setup = await start('setup instance');
  for (const email of emails) await gatehouseCli(root, baseEnv, ['users', 'add', '--email', email, '--password', password, '--name', email.split('@')[0]!, '--confirmed']);
  const setupToken = await obtainAccessToken(setup.baseUrl, emails[0]!, password);
  await seedPosts(setup.baseUrl, setupToken, 100);
  await setup.server.stop();

  const results: Record<Phase, PhaseResult>[] = [];
  for (let round = 1; round <= rounds; round++) {
    results.push(await oneRound());
    process.stderr.write(`round ${round}: ${PHASES.map((phase) => `${phase} ${results.at(-1)![phase].cpuUsPerRequest.toFixed(0)} µs`).join(', ')}\n`);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  process.stdout.write(`${postgres ? 'PostgreSQL' : 'SQLite'}, ${requests} requests a phase, ${rounds} rounds: server CPU per request (median), median latency\n`);
  for (const phase of PHASES) {
    process.stdout.write(`${phase.padEnd(6)} ${median(results.map((r) => r[phase].cpuUsPerRequest)).toFixed(0).padStart(6)} µs  ${median(results.map((r) => r[phase].p50Ms)).toFixed(2)} ms\n`);
  }
} finally {
  await stopAllChildren();
  await database?.drop();
  await rm(temporary, { recursive: true, force: true });
}
