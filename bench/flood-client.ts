// The sign-in flood of bench/lib/sign-in-flood.ts, run pinned to the load generator's core:
// FLOOD_CONNECTIONS kept-alive connections from FLOOD_LOCAL_ADDRESS, each sending its next sign-in
// as soon as the last is answered, for FLOOD_SECONDS: wrong passwords for made-up accounts,
// alternately on `POST /auth/token` and `POST /account/login`, so that every one the service takes
// costs a hash (the dummy verification for an unknown account). Prints one JSON line: requests,
// answers by status, connection errors.
import { Agent, request } from 'node:http';

const baseUrl = new URL(required('FLOOD_URL'));
const connections = Number(process.env.FLOOD_CONNECTIONS ?? 64);
const seconds = Number(process.env.FLOOD_SECONDS ?? 10);
const localAddress = process.env.FLOOD_LOCAL_ADDRESS || undefined;
const agent = new Agent({ keepAlive: true, maxSockets: connections });

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

const statuses: Record<string, number> = {};
let requests = 0;
let errors = 0;
const end = performance.now() + seconds * 1000;

async function connection(): Promise<void> {
  while (performance.now() < end) {
    requests += 1;
    const path = requests % 2 === 0 ? '/auth/token' : '/account/login';
    try {
      const status = await post(new URL(path, baseUrl), { email: `guess-${requests}@example.test`, password: `guess number ${requests}` });
      statuses[status] = (statuses[status] ?? 0) + 1;
    } catch {
      errors += 1;
    }
  }
}

function post(target: URL, body: unknown): Promise<number> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target,
      {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: 30_000,
        ...(localAddress === undefined ? {} : { localAddress }),
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
        response.once('error', reject);
      },
    );
    outgoing.once('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.once('error', reject);
    outgoing.end(payload);
  });
}

await Promise.all(Array.from({ length: connections }, connection));
agent.destroy();
process.stdout.write(`${JSON.stringify({ requests, statuses, errors })}\n`);
