// The mixed traffic of bench/README.md ("Mixed traffic"), run by bench/lib/long-runs.ts pinned to the
// load generator's core. CLIENTS clients, each on one kept-alive connection, each signed in on its own
// (`POST /auth/token`: a refresh family of its own, so that rotations never collide), send requests
// back to back for SECONDS: 80 % `GET /me` with the client's access token, 15 % the GraphQL query
// `{ me { id } posts(first: 20) { id title } }`, 5 % `POST /auth/refresh` with the client's latest
// refresh token, whose answer gives the client its next access and refresh tokens. Any answer but a
// 200 with the expected body, and any connection error, is an error. Prints one JSON line: per kind,
// the count, the errors and the latency p50/p99 in ms.
import { Agent, request } from 'node:http';
import { percentile } from './lib/percentile.ts';

const baseUrl = new URL(required('BASE_URL'));
const email = required('EMAIL');
const password = required('PASSWORD');
const clients = Number(process.env.CLIENTS ?? 32);
const seconds = Number(process.env.SECONDS ?? 60);
const graphqlQuery = required('GRAPHQL_QUERY');

type Kind = 'me' | 'graphql' | 'refresh';
/** Out of 20 requests: 16 reads, 3 GraphQL queries, 1 refresh. */
const MIX: readonly (readonly [Kind, number])[] = [['me', 16], ['graphql', 3], ['refresh', 1]];

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const agent = new Agent({ keepAlive: true, maxSockets: clients });
const latencies: Record<Kind, number[]> = { me: [], graphql: [], refresh: [] };
const errors: Record<Kind, number> = { me: 0, graphql: 0, refresh: 0 };
const firstErrors: string[] = [];

interface Answer {
  readonly status: number;
  readonly body: string;
}

function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { agent, host: baseUrl.hostname, port: baseUrl.port, method, path, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

async function signIn(): Promise<Tokens> {
  const answer = await send('POST', '/auth/token', {}, JSON.stringify({ email, password }));
  if (answer.status !== 200) throw new Error(`POST /auth/token answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as Tokens;
}

function pickKind(): Kind {
  let draw = Math.floor(Math.random() * 20);
  for (const [kind, weight] of MIX) {
    if (draw < weight) return kind;
    draw -= weight;
  }
  return 'me';
}

/** One request of `kind`; what counts as a right answer for each. */
async function once(kind: Kind, tokens: Tokens): Promise<string | null> {
  const authorization = `Bearer ${tokens.accessToken}`;
  if (kind === 'me') {
    const answer = await send('GET', '/me', { authorization });
    return answer.status === 200 ? null : `GET /me ${answer.status} ${answer.body.slice(0, 200)}`;
  }
  if (kind === 'graphql') {
    const answer = await send('POST', '/graphql', { authorization }, JSON.stringify({ query: graphqlQuery }));
    return answer.status === 200 && !answer.body.includes('"errors"') && answer.body.includes('"me":{') ? null : `POST /graphql ${answer.status} ${answer.body.slice(0, 200)}`;
  }
  const answer = await send('POST', '/auth/refresh', {}, JSON.stringify({ refreshToken: tokens.refreshToken }));
  if (answer.status !== 200) return `POST /auth/refresh ${answer.status} ${answer.body.slice(0, 200)}`;
  const next = JSON.parse(answer.body) as Partial<Tokens>;
  if (typeof next.accessToken !== 'string' || typeof next.refreshToken !== 'string') return `POST /auth/refresh gave no tokens: ${answer.body.slice(0, 200)}`;
  tokens.accessToken = next.accessToken;
  tokens.refreshToken = next.refreshToken;
  return null;
}

async function client(tokens: Tokens, until: number): Promise<void> {
  while (performance.now() < until) {
    const kind = pickKind();
    const started = performance.now();
    let failure: string | null;
    try {
      failure = await once(kind, tokens);
    } catch (error) {
      failure = `${kind}: ${(error as Error).message}`;
    }
    latencies[kind].push(performance.now() - started);
    if (failure !== null) {
      errors[kind] += 1;
      if (firstErrors.length < 5) firstErrors.push(failure);
    }
  }
}

// Sign-ins one after the other: each is a password hash on the server, not what is measured.
const families: Tokens[] = [];
for (let i = 0; i < clients; i++) families.push(await signIn());
const started = performance.now();
const until = started + seconds * 1000;
await Promise.all(families.map((tokens) => client(tokens, until)));
const elapsed = (performance.now() - started) / 1000;

const kinds = Object.fromEntries(
  (Object.keys(latencies) as Kind[]).map((kind) => {
    const sorted = latencies[kind].sort((a, b) => a - b);
    return [kind, { requests: sorted.length, errors: errors[kind], perSecond: sorted.length / elapsed, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) }];
  }),
);
const total = Object.values(latencies).reduce((sum, list) => sum + list.length, 0);
const failed = Object.values(errors).reduce((sum, count) => sum + count, 0);
process.stdout.write(`${JSON.stringify({ seconds: elapsed, clients, requests: total, errors: failed, errorRate: total === 0 ? 1 : failed / total, kinds, firstErrors })}\n`);
agent.destroy();
process.exit(0);
