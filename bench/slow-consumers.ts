// `node --import tsx bench/slow-consumers.ts [--sockets N] [--subscriptions S] [--posts P] [--heavy]`:
// the slow-consumer attack of bench/README.md ("Slow consumers") replayed against the built service
// (`dist/`, as `npm start` runs it, on a fresh SQLite database). One user opens N sockets (10), starts
// S `postCreated` subscriptions on each (100), and stops reading (`ws.pause()`: nothing more is read
// from the TCP socket); then P posts (20) with 10,000-character bodies are created over HTTP, one
// after the other, while one more socket of another user subscribes once and reads everything.
// `--heavy` selects each post's author's 20 newest posts' bodies too (~210 KB a message instead of
// ~10 KB). The service's resident set size is read from /proc every 50 ms: before the sockets open,
// its peak, and 10 s after the last post. Prints what the paused sockets saw once they read again
// (close codes), whether the reading subscriber got every post, and the RSS figures; one JSON line
// last.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort, gatehouseCli, obtainAccessToken, serviceArguments } from './lib/gatehouse.ts';
import { startServer, stopAllChildren } from './lib/processes.ts';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const HOST = '127.0.0.1';
const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const socketCount = option('--sockets', 10);
const subscriptionsPerSocket = option('--subscriptions', 100);
const postCount = option('--posts', 20);
const heavy = args.includes('--heavy');
const SETTLE_MS = 10_000;
const BODY = 'x'.repeat(10_000);
const SUBSCRIPTION = heavy ? 'subscription { postCreated { id title body author { posts(first: 20) { body } } } }' : 'subscription { postCreated { id title body } }';

/** The service's resident set size, MiB. */
function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round((Number(match[1]) / 1024) * 10) / 10;
}

/** A graphql-transport-ws socket that has been acknowledged; counts `next` messages and keeps its close. */
async function openSocket(url: string, token: string) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  let nexts = 0;
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  const acknowledged = new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const type = (JSON.parse(String(data)) as { type: string }).type;
      if (type === 'connection_ack') resolve();
      else if (type === 'next') nexts += 1;
    });
    void closed.then((code) => reject(new Error(`socket closed with ${code} before connection_ack`)));
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
  await acknowledged;
  const subscribe = (count: number) => {
    for (let id = 0; id < count; id++) ws.send(JSON.stringify({ id: String(id), type: 'subscribe', payload: { query: SUBSCRIPTION } }));
  };
  return { ws, closed, nexts: () => nexts, subscribe };
}

async function metric(baseUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

const temporary = await mkdtemp(join(tmpdir(), 'gatehouse-slow-consumers-'));
try {
  const port = await freePort(HOST);
  const baseUrl = `http://${HOST}:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    HOST,
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(temporary, 'gatehouse.db')}`,
    KEYRING_SECRET: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_MINUTES: '60',
    METRICS: 'true',
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
    RATE_LIMIT_IP_PER_MINUTE: '0',
  };
  const password = randomBytes(12).toString('base64url');
  for (const name of ['attacker', 'reader']) {
    await gatehouseCli(root, env, ['users', 'add', '--email', `${name}@example.test`, '--password', password, '--name', name, '--confirmed']);
  }
  const server = await startServer({ name: 'gatehouse', command: process.execPath, args: serviceArguments(root), env, cwd: root, cpu: null, readyUrl: `${baseUrl}/health`, timeoutMs: 60_000 });
  const attacker = await obtainAccessToken(baseUrl, 'attacker@example.test', password);
  const readerToken = await obtainAccessToken(baseUrl, 'reader@example.test', password);
  const wsUrl = `${baseUrl.replace('http', 'ws')}/graphql`;

  const before = rssMiB(server.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 50);

  const reader = await openSocket(wsUrl, readerToken);
  reader.subscribe(1);
  const paused = [];
  for (let i = 0; i < socketCount; i++) {
    const socket = await openSocket(wsUrl, attacker);
    socket.subscribe(subscriptionsPerSocket);
    paused.push(socket);
  }
  await until('every subscription active', async () => (await metric(baseUrl, 'gatehouse_graphql_subscriptions')) === socketCount * subscriptionsPerSocket + 1);
  for (const socket of paused) socket.ws.pause();

  const started = performance.now();
  for (let i = 1; i <= postCount; i++) {
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${attacker}` },
      body: JSON.stringify({ query: 'mutation($title: String!, $body: String!) { createPost(title: $title, body: $body) { id } }', variables: { title: `Post ${i}`, body: BODY } }),
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"')) throw new Error(`createPost ${i}: ${response.status} ${text.slice(0, 300)}`);
  }
  await until('the reader got every post', () => reader.nexts() === postCount);
  const deliveredMs = Math.round(performance.now() - started);
  await sleep(SETTLE_MS);
  clearInterval(sampler);
  const after = rssMiB(server.pid);
  const socketsLeft = await metric(baseUrl, 'gatehouse_graphql_sockets');
  const subscriptionsLeft = await metric(baseUrl, 'gatehouse_graphql_subscriptions');

  // Reading again, each paused client finds out what became of its socket.
  for (const socket of paused) socket.ws.resume();
  const codes = await Promise.all(paused.map((socket) => Promise.race([socket.closed, sleep(5_000).then(() => 'still open' as const)])));
  const result = {
    sockets: socketCount,
    subscriptionsPerSocket,
    posts: postCount,
    heavy,
    bufferBytes: Number(process.env.GRAPHQL_MAX_SOCKET_BUFFER_BYTES ?? 1_048_576),
    rssBeforeMiB: before,
    rssPeakMiB: peak,
    rssAfterMiB: after,
    readerReceived: reader.nexts(),
    deliveredMs,
    socketsLeft,
    subscriptionsLeft,
    pausedCloseCodes: codes,
    pausedNextsReceived: paused.map((socket) => socket.nexts()),
  };
  process.stderr.write(
    `${socketCount} paused sockets × ${subscriptionsPerSocket} subscriptions, ${postCount} posts of 10 KB${heavy ? ' (heavy selection)' : ''}\n` +
      `RSS before ${before} MiB, peak ${peak} MiB, ${SETTLE_MS / 1000} s after the last post ${after} MiB\n` +
      `reader received ${reader.nexts()} of ${postCount} posts; sockets left ${socketsLeft} (the reader's is 1), subscriptions left ${subscriptionsLeft}\n` +
      `paused sockets, once reading again: ${codes.join(', ')}\n`,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  reader.ws.close();
} finally {
  await stopAllChildren();
  await rm(temporary, { recursive: true, force: true });
}
