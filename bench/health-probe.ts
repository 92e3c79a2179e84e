// A steady latency probe: `GET PROBE_URL` every 1000 / PROBE_RATE ms for PROBE_SECONDS over one
// kept-alive connection, as a monitor or a load balancer's health check would call it. Run by
// bench/lib/sign-in.ts pinned to the load generator's core; prints one line of JSON. With
// PROBE_METHOD, PROBE_BODY and PROBE_HEADERS (a JSON object) it probes another request the same
// way: a sign-in at a steady rate (bench/lib/sign-in-contention.ts). PROBE_LOCAL_ADDRESS sends from
// that address (a loopback one other than the load's: another client, bench/lib/sign-in-flood.ts).
//
// Why not autocannon's `-R`: it sends each second's quota back to back at the start of the second
// and then waits for the next, so the "probe" is a burst of 100 requests once a second; and it
// corrects for coordinated omission with an expected interval of `Math.ceil(1 / rate)` = 1 ms
// whatever the rate, which adds a synthetic sample for every millisecond a response took beyond
// the first (decision 0028).
//
// Coordinated omission is handled here instead: a request that could not leave on time because
// the one before it had not come back counts its latency from when it should have left. A request
// that leaves on time counts from when it left, so the probe's own timer jitter is not charged to
// the server.
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './lib/percentile.ts';

const url = new URL(process.env.PROBE_URL ?? '');
const rate = Number(process.env.PROBE_RATE ?? 100);
const seconds = Number(process.env.PROBE_SECONDS ?? 10);
const method = process.env.PROBE_METHOD ?? 'GET';
const body = process.env.PROBE_BODY;
const headers = JSON.parse(process.env.PROBE_HEADERS ?? '{}') as Record<string, string>;
const localAddress = process.env.PROBE_LOCAL_ADDRESS || undefined;
const intervalMs = 1000 / rate;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const latencies: number[] = [];
let non2xx = 0;
let errors = 0;
/** Answers by status, for a probe that may be refused (503, 429). */
const statuses: Record<string, number> = {};

const start = performance.now();
const end = start + seconds * 1000;
for (let due = start; due < end; due += intervalMs) {
  const now = performance.now();
  if (now < due) await sleep(due - now);
  const sentAt = performance.now();
  // Late because the previous answer was: the wait is the server's doing, so it counts.
  const countedFrom = now > due ? due : sentAt;
  try {
    const status = await get(url);
    if (status < 200 || status > 299) non2xx++;
    statuses[status] = (statuses[status] ?? 0) + 1;
    latencies.push(performance.now() - countedFrom);
  } catch {
    errors++;
  }
}
agent.destroy();

latencies.sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    requests: latencies.length + errors,
    non2xx,
    errors,
    statuses,
    latencyP50Ms: tenths(percentile(latencies, 0.5)),
    latencyP99Ms: tenths(percentile(latencies, 0.99)),
    latencyMaxMs: tenths(latencies.at(-1) ?? 0),
  })}\n`,
);

function tenths(milliseconds: number): number {
  return Math.round(milliseconds * 10) / 10;
}

function get(target: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(target, { agent, method, headers, timeout: 10_000, ...(localAddress === undefined ? {} : { localAddress }) }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    outgoing.once('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}
