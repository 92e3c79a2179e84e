// The subscription fan-out of bench/README.md, run by bench/run.ts pinned to the load generator's
// core: SUBSCRIBERS graphql-ws clients subscribe to `postCreated`, then EVENTS `createPost`
// mutations go out one every INTERVAL_MS over HTTP. An event's latency is the time from sending its
// mutation until the last subscriber has it. WARMUP_EVENTS events go first, the same way, and are
// not counted (like the warm-up of every HTTP scenario: the load generator's and the service's code
// paths get compiled before the measurement). Prints one JSON line: delivered, expected, p50, p99,
// every event's latency, the service's CPU per event, and the warm-up's own figures.
import WebSocket from 'ws';
import { processCpuSeconds } from './lib/cpu-usage.ts';
import { percentile } from './lib/percentile.ts';

const baseUrl = required('BASE_URL');
const token = required('ACCESS_TOKEN');
const subscribers = Number(process.env.SUBSCRIBERS ?? 1000);
const events = Number(process.env.EVENTS ?? 100);
const intervalMs = Number(process.env.INTERVAL_MS ?? 20);
const deadlineMs = Number(process.env.DEADLINE_MS ?? 30_000);
const warmupEvents = Number(process.env.WARMUP_EVENTS ?? 0);
/** The service's process, whose CPU time over the events is read from /proc (Linux) when given. */
const serverPid = process.env.SERVER_PID ? Number(process.env.SERVER_PID) : null;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
const sentAt = new Map<string, number>();
const lastReceivedAt = new Map<string, number>();
const receivedCount = new Map<string, number>();

function onPost(title: string): void {
  const now = performance.now();
  receivedCount.set(title, (receivedCount.get(title) ?? 0) + 1);
  lastReceivedAt.set(title, Math.max(lastReceivedAt.get(title) ?? 0, now));
}

/**
 * One subscriber on a bare `ws` socket speaking graphql-transport-ws itself: the load generator
 * must not be what is measured, and a protocol client's per-message bookkeeping would be, at
 * 50,000 messages a second on one core. Resolves once the subscription is sent after the ack.
 */
function subscribeOne(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    let subscribed = false;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: { data?: { postCreated?: { title: string } } } };
      if (message.type === 'next') {
        const title = message.payload?.data?.postCreated?.title;
        if (title !== undefined) onPost(title);
      } else if (message.type === 'connection_ack' && !subscribed) {
        subscribed = true;
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { postCreated { title } }' } }));
        resolve(socket);
      } else if (message.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
      }
    });
    socket.on('error', reject);
    socket.on('close', (code) => {
      if (!subscribed) reject(new Error(`socket closed before subscribing: ${code}`));
    });
  });
}

const clients: WebSocket[] = [];
for (let i = 0; i < subscribers; i += 50) {
  const batch = await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, subscribeOne));
  clients.push(...batch);
}
// Let the last subscribe messages reach the server before the first event.
await new Promise((resolve) => setTimeout(resolve, 1000));

const mutation = 'mutation($title: String!) { createPost(title: $title, body: "fan-out") { id } }';

/** Sends `count` events titled `<phase> <n>` one every INTERVAL_MS and waits until they are all in (or the deadline). */
async function run(phase: string, count: number) {
  const cpuBefore = serverPid === null ? null : processCpuSeconds(serverPid);
  const sends: Promise<void>[] = [];
  const titles: string[] = [];
  for (let i = 0; i < count; i++) {
    const title = `${phase} ${i}`;
    titles.push(title);
    sentAt.set(title, performance.now());
    sends.push(
      fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: mutation, variables: { title } }),
      }).then(async (response) => {
        const text = await response.text();
        if (response.status !== 200 || text.includes('"errors"')) throw new Error(`createPost answered ${response.status}: ${text.slice(0, 200)}`);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  await Promise.all(sends);
  const arrived = () => titles.reduce((sum, title) => sum + (receivedCount.get(title) ?? 0), 0);
  const started = performance.now();
  while (arrived() < subscribers * count && performance.now() - started < deadlineMs) await new Promise((resolve) => setTimeout(resolve, 50));
  const cpuAfter = serverPid === null ? null : processCpuSeconds(serverPid);
  // The service's CPU per event (its mutation and its 1,000 deliveries): steadier than latency,
  // which a pause of the load generator's own core moves too.
  const serverCpuMsPerEvent = cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1000 * 100) / count) / 100;

  const latencies = titles.map((title) => (receivedCount.get(title) === subscribers ? lastReceivedAt.get(title)! - sentAt.get(title)! : Number.POSITIVE_INFINITY));
  latencies.sort((a, b) => a - b);
  // The slowest events by their place in the sequence, to tell a cold start from a steady tail.
  const slowest = titles
    .map((title) => [title, (lastReceivedAt.get(title) ?? Number.POSITIVE_INFINITY) - sentAt.get(title)!] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([title, ms]) => ({ event: title, ms: Math.round(ms) }));
  // The first events in the order they were sent: after a fresh start, the cold path's cost.
  const firstMs = titles.slice(0, 10).map((title) => Math.round(((lastReceivedAt.get(title) ?? Number.POSITIVE_INFINITY) - sentAt.get(title)!) * 10) / 10);
  return {
    delivered: arrived(),
    expected: subscribers * count,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies.at(-1) ?? 0,
    firstMs,
    slowest,
    serverCpuMsPerEvent,
    // Every event's latency (null for one not fully delivered), for percentiles over several runs.
    latenciesMs: latencies.map((ms) => (Number.isFinite(ms) ? Math.round(ms * 1000) / 1000 : null)),
  };
}

const warmUp = warmupEvents > 0 ? await run('warm-up', warmupEvents) : null;
const measured = await run('event', events);
process.stdout.write(`${JSON.stringify({ ...measured, warmUp })}\n`);
for (const socket of clients) socket.close(1000);
process.exit(0);
