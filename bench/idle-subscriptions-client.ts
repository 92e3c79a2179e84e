// The idle-subscription soak of bench/README.md, run by bench/lib/long-runs.ts pinned to the load
// generator's core: SUBSCRIBERS graphql-ws clients subscribe to `postCreated` and then stay idle
// (answering the server's pings, if it sends any) for SOAK_SECONDS, while the service's resident
// set size is read from /proc/SERVER_PID/status every SAMPLE_SECONDS. Nothing is published: what
// is measured is what a held subscription costs over time. A socket that closes meanwhile is
// counted. Prints one JSON line: the samples (seconds since the subscriptions were made, RSS in
// MiB) and the sockets closed.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const baseUrl = required('BASE_URL');
const token = required('ACCESS_TOKEN');
const serverPid = Number(required('SERVER_PID'));
const subscribers = Number(process.env.SUBSCRIBERS ?? 1000);
const soakSeconds = Number(process.env.SOAK_SECONDS ?? 600);
const sampleSeconds = Number(process.env.SAMPLE_SECONDS ?? 5);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
let closed = 0;
let nextMessages = 0;

/** One subscriber on a bare `ws` socket speaking graphql-transport-ws; resolves once subscribed. */
function subscribeOne(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
    let subscribed = false;
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'connection_ack' && !subscribed) {
        subscribed = true;
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { postCreated { id title } }' } }));
        resolve(socket);
      } else if (message.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
      } else if (message.type === 'next') {
        nextMessages += 1;
      }
    });
    socket.on('error', reject);
    socket.on('close', (code) => {
      if (!subscribed) reject(new Error(`socket closed before subscribing: ${code}`));
      else closed += 1;
    });
  });
}

function rssMiB(): number {
  const status = readFileSync(`/proc/${serverPid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match === null) throw new Error(`no VmRSS for process ${serverPid}`);
  return Math.round((Number(match[1]) / 1024) * 10) / 10;
}

const before = rssMiB();
const sockets: WebSocket[] = [];
for (let i = 0; i < subscribers; i += 50) {
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, subscribeOne))));
}
const started = performance.now();
const samples: [number, number][] = [];
for (;;) {
  const at = (performance.now() - started) / 1000;
  samples.push([Math.round(at * 10) / 10, rssMiB()]);
  if (at >= soakSeconds) break;
  await new Promise((resolve) => setTimeout(resolve, Math.min(sampleSeconds, soakSeconds - at) * 1000));
}
process.stdout.write(`${JSON.stringify({ subscribers, rssBeforeMiB: before, samples, closed, nextMessages })}\n`);
for (const socket of sockets) socket.close(1000);
process.exit(0);
