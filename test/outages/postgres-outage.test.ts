/**
 * PostgreSQL away (docs/reference/http.md): requests that need the store answer 503 problem+json
 * with `Retry-After` within a bounded time — the server refusing connections, or accepting them
 * and never answering (a black-holed route) — while `GET /health` stays 200 and
 * `GET /health/ready` says 503 naming the store; when the store returns the service answers
 * again without a restart. At start, a store that cannot be reached ends the process with one
 * line. The shared PostgreSQL is reached through a TCP proxy the test cuts; it is never stopped.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TestEngine, testEngines } from '../helpers/databases.ts';
import { projectRoot, runNode, waitUntil } from '../helpers/processes.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/test-app.ts';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');

/**
 * Generous bounds, not speed: a refused connection answers at once; a black hole within the
 * connect timeout (5 s) plus the query timeout (10 s); a readiness check within its 2 s deadline.
 */
const REFUSED_BOUND_MS = 10_000;
const BLACKHOLE_BOUND_MS = 30_000;
const READINESS_BOUND_MS = 8_000;

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly tookMs: number;
}

async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const startedAt = Date.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const body = await response.text();
  return { status: response.status, headers: response.headers, body, tookMs: Date.now() - startedAt };
}

describe.skipIf(!postgres)('PostgreSQL away and back', { timeout: 120_000 }, () => {
  const engine = postgres as TestEngine;
  let proxy: TcpProxy;
  let ctx: TestApp;
  let base: string;
  let headers: Record<string, string>;

  const createDocument = () =>
    request(`${base}/documents`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'a', body: 'b' }) });

  beforeEach(async () => {
    const url = new URL(await engine.createDatabaseUrl());
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    ctx = await startTestApp(url.toString());
    base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { user } = await ctx.createUser();
    headers = bearer(await ctx.tokenFor(user));
  });

  afterEach(async () => {
    proxy.restore();
    await ctx.close();
    await proxy.close();
  });

  afterAll(() => engine.dropAll());

  async function expectUnavailable(answer: Answer, boundMs: number): Promise<void> {
    expect(answer.status, answer.body).toBe(503);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 503, title: 'Service Unavailable', code: 'GH_STORE_UNAVAILABLE' });
    expect(answer.tookMs).toBeLessThan(boundMs);
  }

  async function expectRecovered(): Promise<void> {
    await waitUntil(async () => (await createDocument()).status === 201, { timeoutMs: 20_000, intervalMs: 200, what: 'POST /documents to answer 201 again' });
    const readiness = await request(`${base}/health/ready`);
    expect(readiness.status).toBe(200);
    expect(JSON.parse(readiness.body)).toEqual({ status: 'ready', checks: { store: 'up', revocations: 'current' } });
  }

  it('answers 503 with Retry-After while PostgreSQL refuses connections, stays live, is not ready, and recovers', async () => {
    expect((await createDocument()).status).toBe(201);
    proxy.cut();

    await expectUnavailable(await createDocument(), REFUSED_BOUND_MS);
    const live = await request(`${base}/health`);
    expect([live.status, live.body]).toEqual([200, '']);
    const readiness = await request(`${base}/health/ready`);
    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(readiness.headers.get('cache-control')).toBe('no-store');
    expect(readiness.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(readiness.body)).toMatchObject({ title: 'Service Unavailable', status: 503, checks: { store: 'down' } });
    expect(readiness.body).not.toContain(String(proxy.port));

    proxy.restore();
    await expectRecovered();
  });

  it('answers 503 within the bound, not never, while PostgreSQL accepts connections and never answers', async () => {
    expect((await createDocument()).status).toBe(201);
    proxy.blackhole();

    // Several at once: more than the pool holds would otherwise queue behind the held ones.
    const answers = await Promise.all(Array.from({ length: 12 }, () => createDocument()));
    for (const answer of answers) await expectUnavailable(answer, BLACKHOLE_BOUND_MS);
    const readiness = await request(`${base}/health/ready`);
    expect(readiness.status).toBe(503);
    expect(readiness.tookMs).toBeLessThan(READINESS_BOUND_MS);
    expect((await request(`${base}/health`)).status).toBe(200);

    proxy.restore();
    await expectRecovered();
  });
});

describe.skipIf(!postgres)('a start with PostgreSQL away', { timeout: 60_000 }, () => {
  afterAll(() => postgres?.dropAll());

  it('ends the process with one line naming the problem, exit code 1', async () => {
    const url = new URL(await postgres!.createDatabaseUrl());
    const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    try {
      proxy.cut();
      url.host = `127.0.0.1:${proxy.port}`;
      const result = await runNode(serviceArguments(projectRoot), { DATABASE_URL: url.toString(), PORT: '0', NODE_ENV: 'test', REDIS_URL: undefined }, 30_000);
      expect(result.code, result.stderr).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^gatehouse: could not start: /);
    } finally {
      await proxy.close();
    }
  });
});
