/**
 * docs/operations.md, "Metrics": `GET /metrics` over a real socket. Off unless METRICS=true; on, it
 * answers loopback callers while no METRICS_TOKEN is set, and the bearer of METRICS_TOKEN (once
 * set, or behind a trusted proxy, the bearer only), with series whose counts follow what the service does, labelled by route pattern so that
 * junk paths add no series, and with no secret in the text.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Counter } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadConfig } from '../../src/config/config.ts';
import { postgresOnEveryHost, testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { runNode } from '../helpers/processes.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { bearer, hostStartProgram, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const sqlite = engines.find((engine) => engine.engine === 'sqlite')!;
// The outage below runs on every host: each answers a store out of reach on its own error path.
const postgres = await postgresOnEveryHost();
const TOKEN = 'metrics-token-0123456789-abcdefghijklmnopqrstuvwxyz';
const KEYRING_SECRET = 'keyring-secret-0123456789-abcdefghijklmnopqrstuvwxyz';
/** An address of this machine that is not loopback: a caller from there is "elsewhere". */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

let ctx: TestApp | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** A service listening on every interface, so that it can be called from loopback and from elsewhere. */
async function start(env: Record<string, string>): Promise<{ app: TestApp; port: number }> {
  const app = await startTestApp(await sqlite.createDatabaseUrl(), { env: { KEYRING_SECRET, ...env } });
  ctx = app;
  await app.app.listen({ host: '0.0.0.0', port: 0 });
  return { app, port: (app.app.server.address() as { port: number }).port };
}

async function get(host: string, port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string; headers: Record<string, string> }> {
  const response = await fetch(`http://${host}:${port}${path}`, { headers });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text(), headers: Object.fromEntries(response.headers) };
}

/** The value of one series (`name{labels}` exactly as written), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Re-reads the metrics until `check` passes: the server's side of a socket settles after the client's. */
async function eventually(read: () => Promise<string>, check: (text: string) => boolean, ms = 5_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const text = await read();
    if (check(text)) return text;
    if (Date.now() > end) throw new Error(`the metrics did not get there within ${ms} ms:\n${text}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('GET /metrics', () => {
  it('does not exist unless METRICS=true', async () => {
    const { app, port } = await start({});
    const response = await get('127.0.0.1', port, '/metrics');
    expect(response.status).toBe(404);
    expect(response.type).toContain('application/problem+json');
    expect(app.app.gatehouse.metrics).toBeUndefined();
  });

  it('answers a loopback caller with the metrics in Prometheus text format', async () => {
    const { port } = await start({ METRICS: 'true' });
    const response = await get('127.0.0.1', port, '/metrics');
    expect(response.status).toBe(200);
    expect(response.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
    for (const name of [
      'gatehouse_http_request_duration_seconds',
      'gatehouse_sign_ins_total',
      'gatehouse_security_events_total',
      'gatehouse_hash_queue_depth',
      'gatehouse_hash_queue_wait_seconds',
      'gatehouse_revocation_feed_lag_seconds',
      'gatehouse_graphql_sockets',
      'gatehouse_graphql_subscriptions',
      'gatehouse_store_unavailable_total',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(response.text).toContain(`# TYPE ${name} `);
    }
    expect(sample(response.text, 'gatehouse_hash_queue_depth')).toBe(0);
    // The feed read the store at start: its lag is well under the poll's second or two.
    expect(sample(response.text, 'gatehouse_revocation_feed_lag_seconds')).toBeLessThan(60);
  });

  it('serves the application’s own metrics beside Gatehouse’s', async () => {
    const { app, port } = await start({ METRICS: 'true' });
    const invoices = new Counter({ name: 'app_invoices_sent_total', help: 'Invoices sent.', registers: [] });
    app.app.gatehouse.metrics!.registry.registerMetric(invoices);
    invoices.inc(3);
    expect(sample((await get('127.0.0.1', port, '/metrics')).text, 'app_invoices_sent_total')).toBe(3);
  });

  it('counts a failed sign-in, a lockout and the requests by route and status', async () => {
    const { app, port } = await start({ METRICS: 'true', LOCKOUT_MAX_ATTEMPTS: '2' });
    const read = async () => (await get('127.0.0.1', port, '/metrics')).text;
    const failed = 'gatehouse_sign_ins_total{step="password",result="failed"}';
    const succeeded = 'gatehouse_sign_ins_total{step="password",result="succeeded"}';
    const lockouts = 'gatehouse_security_events_total{type="lockout"}';
    const loginRefusals = 'gatehouse_http_request_duration_seconds_count{method="POST",route="/account/login",status="401"}';
    const before = await read();
    expect(sample(before, failed)).toBe(0);
    expect(sample(before, lockouts)).toBe(0);
    expect(sample(before, loginRefusals)).toBeUndefined();

    const { user, password } = await app.createUser();
    const signIn = (secret: string) => fetch(`http://127.0.0.1:${port}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: secret }),
    });
    expect((await signIn(password)).status).toBe(200);
    expect((await signIn('not the password')).status).toBe(401);
    let after = await read();
    expect(sample(after, succeeded)).toBe(1);
    expect(sample(after, failed)).toBe(1);
    expect(sample(after, loginRefusals)).toBe(1);
    expect(sample(after, lockouts)).toBe(0);

    expect((await signIn('still not the password')).status).toBe(401);
    after = await read();
    expect(sample(after, failed)).toBe(2);
    expect(sample(after, lockouts)).toBe(1);
    expect(sample(after, loginRefusals)).toBe(2);
    expect(sample(after, 'gatehouse_security_events_total{type="signin.failed"}')).toBe(2);
  });

  it('counts a passkey sign-in as a first step of its own', async () => {
    const { port } = await start({ METRICS: 'true' });
    const base = `http://127.0.0.1:${port}`;
    const refused = 'gatehouse_sign_ins_total{step="passkey",result="failed"}';
    expect(sample((await get('127.0.0.1', port, '/metrics')).text, refused)).toBe(0);
    const options = await fetch(`${base}/account/login/passkey/options`, { method: 'POST' });
    const challengeCookie = (options.headers.get('set-cookie') ?? '').split(';')[0]!;
    // A passkey this service has never seen: refused, and counted as the passkey step's failure.
    const assertion = new SoftwareAuthenticator().assert(await options.json(), { origin: base });
    const answer = await fetch(`${base}/account/login/passkey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: challengeCookie },
      body: JSON.stringify({ response: assertion }),
    });
    expect(answer.status).toBe(401);
    expect(sample((await get('127.0.0.1', port, '/metrics')).text, refused)).toBe(1);
  });

  it('labels requests by route pattern: ids and unknown paths add no series', async () => {
    const { app, port } = await start({ METRICS: 'true' });
    const { user } = await app.createUser();
    const token = await app.tokenFor(user);
    for (const path of ['/no-such-path/123', '/no-such-path/456', '/wp-login.php?user=admin']) {
      expect((await get('127.0.0.1', port, path)).status).toBe(404);
    }
    for (const id of ['101', '202']) {
      expect((await get('127.0.0.1', port, `/documents/${id}`, { authorization: `Bearer ${token}` })).status).toBe(404);
    }
    const query = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ posts { id } }"}' });
    expect(query.status).toBe(200);
    const text = (await get('127.0.0.1', port, '/metrics')).text;
    expect(text).not.toMatch(/no-such-path|wp-login|\/documents\/(101|202)/);
    expect(sample(text, 'gatehouse_http_request_duration_seconds_count{method="POST",route="/graphql",status="200"}')).toBe(1);
    expect(sample(text, 'gatehouse_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}')).toBe(3);
    expect(sample(text, 'gatehouse_http_request_duration_seconds_count{method="GET",route="/documents/:id",status="404"}')).toBe(2);
  });

  it('counts live GraphQL sockets and subscriptions', async () => {
    const { app, port } = await start({ METRICS: 'true' });
    const read = async () => (await get('127.0.0.1', port, '/metrics')).text;
    const { user } = await app.createUser();
    const token = await app.tokenFor(user);
    const socket = openSocket(`ws://127.0.0.1:${port}/graphql`, { connectionParams: { authorization: `Bearer ${token}` } });
    try {
      await socket.connected;
      const created = socket.subscribe('subscription { postCreated { title } }');
      // Delivered: the subscription is live on the server.
      await eventually(read, (text) => sample(text, 'gatehouse_graphql_subscriptions') === 1);
      await socket.execute('mutation { createPost(title: "Hello", body: "World") { id } }');
      await created.receivedCount(1);
      const live = await read();
      expect(sample(live, 'gatehouse_graphql_sockets')).toBe(1);
      expect(sample(live, 'gatehouse_graphql_subscriptions')).toBe(1);
      created.stop();
      await eventually(read, (text) => sample(text, 'gatehouse_graphql_subscriptions') === 0);
    } finally {
      await socket.dispose();
    }
    await eventually(read, (text) => sample(text, 'gatehouse_graphql_sockets') === 0);
  });

  it('answers loopback only to the token once one is set: any local process is on loopback too', async () => {
    const { port } = await start({ METRICS: 'true', METRICS_TOKEN: TOKEN });
    const local = await get('127.0.0.1', port, '/metrics');
    expect(local.status).toBe(404);
    expect(local.text).not.toContain('gatehouse_');
    expect((await get('127.0.0.1', port, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('writes no secret: not the token, the key ring secret or a password', async () => {
    const { app, port } = await start({ METRICS: 'true', METRICS_TOKEN: TOKEN });
    const { user, password } = await app.createUser();
    await fetch(`http://127.0.0.1:${port}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password }),
    });
    const response = await get('127.0.0.1', port, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    for (const secret of [TOKEN, KEYRING_SECRET, password]) {
      expect(response.text).not.toContain(secret);
      expect(app.logs.join('')).not.toContain(secret);
    }
  });
});

describe.skipIf(outsideAddress === undefined)('GET /metrics from elsewhere than loopback', () => {
  it('is a 404 without the token or with a wrong one, and the metrics with it', async () => {
    const { port } = await start({ METRICS: 'true', METRICS_TOKEN: TOKEN });
    const missing = await get(outsideAddress!, port, '/metrics');
    expect(missing.status).toBe(404);
    expect(missing.type).toContain('application/problem+json');
    expect(missing.text).not.toContain('gatehouse_');
    expect((await get(outsideAddress!, port, '/metrics', { authorization: `Bearer ${TOKEN.slice(0, -1)}x` })).status).toBe(404);
    expect((await get(outsideAddress!, port, '/metrics', { authorization: TOKEN })).status).toBe(404);
    // X-Forwarded-For is not the socket's address, and without TRUST_PROXY it is not believed anyway.
    expect((await get(outsideAddress!, port, '/metrics', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(404);
    const allowed = await get(outsideAddress!, port, '/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain('gatehouse_sign_ins_total');
  });

  it('is a 404 without METRICS_TOKEN set at all', async () => {
    const { port } = await start({ METRICS: 'true' });
    expect((await get(outsideAddress!, port, '/metrics', { authorization: 'Bearer ' })).status).toBe(404);
    expect((await get('127.0.0.1', port, '/metrics')).status).toBe(200);
  });
});

describe('GET /metrics behind a trusted proxy (TRUST_PROXY=true)', () => {
  it('needs the token even from loopback, whatever X-Forwarded-For says', async () => {
    const { port } = await start({ METRICS: 'true', METRICS_TOKEN: TOKEN, TRUST_PROXY: 'true' });
    expect((await get('127.0.0.1', port, '/metrics')).status).toBe(404);
    expect((await get('127.0.0.1', port, '/metrics', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(404);
    expect((await get('127.0.0.1', port, '/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('refuses to start with metrics on and no METRICS_TOKEN', () => {
    const error = catching(() => loadConfig({ METRICS: 'true', TRUST_PROXY: 'true' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('METRICS_TOKEN');
  });
});

describe('the metrics settings', () => {
  it('refuses a short METRICS_TOKEN without repeating it', () => {
    const error = catching(() => loadConfig({ METRICS: 'true', METRICS_TOKEN: 'short-secret' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^METRICS_TOKEN must be at least 32 characters/);
    expect((error as Error).message).not.toContain('short-secret');
  });

  it('refuses a METRICS_TOKEN of one character repeated, however long', () => {
    const repeated = 'a'.repeat(48);
    const error = catching(() => loadConfig({ METRICS: 'true', METRICS_TOKEN: repeated }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('METRICS_TOKEN');
    expect((error as Error).message).toContain('not one character repeated');
    expect((error as Error).message).not.toContain(repeated);
  });

  it('refuses a METRICS value that is not a boolean', () => {
    expect((catching(() => loadConfig({ METRICS: 'maybe' })) as ConfigError).variable).toBe('METRICS');
  });

  it('is off by default', () => {
    expect(loadConfig({})).toMatchObject({ metrics: false, metricsToken: undefined });
  });
});

describe('prom-client', () => {
  /** Starts the library on the host under test with metrics on or off in a fresh process, and tells whether prom-client was loaded. */
  const loadsPromClient = async (metrics: boolean) => {
    const program = `
      ${hostStartProgram(`{ databaseUrl: 'sqlite::memory:', metrics: ${metrics} }`)}
      import { createRequire } from 'node:module';
      const cache = createRequire(process.cwd() + '/').cache;
      process.stdout.write(JSON.stringify({ loaded: Object.keys(cache).some((path) => path.includes('/node_modules/prom-client/')) }));`;
    const result = await runNode(['--input-type=module', '-e', program]);
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { loaded: boolean }).loaded;
  };

  it('is loaded only by a service with metrics on', async () => {
    expect(await loadsPromClient(false)).toBe(false);
    expect(await loadsPromClient(true)).toBe(true);
  });
});

/** A relay to PostgreSQL that can drop every connection and refuse new ones. */
class Relay {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

describe.skipIf(!postgres)('gatehouse_store_unavailable_total', () => {
  it('counts the requests answered 503 while the store is gone, from a route, from authentication and from Gatehouse’s endpoints', async () => {
    const url = new URL(await postgres!.createDatabaseUrl());
    const relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
    await relay.open();
    url.host = `127.0.0.1:${relay.port}`;
    const app = await startTestApp(url.toString(), { env: { KEYRING_SECRET, METRICS: 'true' } });
    ctx = app;
    try {
      const { user } = await app.createUser();
      const key = await app.apiKey('ops');
      const headers = bearer(await app.tokenFor(user));
      const read = async () => (await app.app.inject({ url: '/metrics' })).body;
      expect(sample(await read(), 'gatehouse_store_unavailable_total')).toBe(0);
      await relay.cut();
      expect((await app.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } })).statusCode).toBe(503);
      expect((await app.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } })).statusCode).toBe(503);
      expect((await app.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password: 'whatever it is' } })).statusCode).toBe(503);
      const text = await read();
      expect(sample(text, 'gatehouse_store_unavailable_total')).toBe(3);
      expect(sample(text, 'gatehouse_http_request_duration_seconds_count{method="POST",route="/documents",status="503"}')).toBe(1);
      expect(sample(text, 'gatehouse_http_request_duration_seconds_count{method="POST",route="/auth/token",status="503"}')).toBe(1);
    } finally {
      // The relay again, so that the app closes its pool without waiting on dead connections.
      await relay.open();
      await app.close();
      ctx = undefined;
      await relay.cut();
      await postgres!.dropAll();
    }
  });
});

function catching(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
