/**
 * docs/reference/http.md: when the store cannot be reached the service answers 503 problem+json (never
 * a 500, never a grant), and recovers on its own when the store returns. PostgreSQL is reached
 * through a TCP proxy the test can cut (test/outages/ has the black hole and readiness).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const postgres = (await testEngines()).find((engine) => engine.engine === 'postgres');

describe.skipIf(!postgres)('an unreachable store', () => {
  let proxy: TcpProxy;
  let ctx: TestApp;

  beforeEach(async () => {
    const url = new URL(await postgres!.createDatabaseUrl());
    proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    ctx = await startTestApp(url.toString());
  });

  afterEach(async () => {
    proxy.restore();
    await ctx.close();
    await proxy.close();
  });

  afterAll(() => postgres?.dropAll());

  it('answers 503 problem+json while the database is gone, and recovers when it returns', async () => {
    const { user } = await ctx.createUser();
    const key = await ctx.apiKey('ops');
    const headers = bearer(await ctx.tokenFor(user));
    proxy.cut();

    const document = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } });
    expect(document.statusCode).toBe(503);
    expect(document.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(document)).toMatchObject({ status: 503, title: 'Service Unavailable' });
    expect(document.headers['retry-after']).toBe('5');
    const byKey = await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key } });
    expect(byKey.statusCode).toBe(503);

    proxy.restore();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } })).statusCode;
      if (status === 201) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(201);
  });
});
