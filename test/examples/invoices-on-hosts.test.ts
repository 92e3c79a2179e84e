/**
 * The invoices example on Express, Hono and NestJS (examples/invoices-express, invoices-hono, invoices-nestjs),
 * driven over HTTP as their users would, on SQLite and on PostgreSQL: the same rules as the
 * Fastify one (test/examples/invoices.test.ts), from the same policies and resource handler. Then
 * each `main.ts` is run as a process.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Config, configFromSettings, createLogger } from 'gatehouse-auth/express';
import type { Gatehouse } from 'gatehouse-auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInvoicesExpressApp, IDENTITY_PREFIX } from '../../examples/invoices-express/app.ts';
import { buildInvoicesHonoApp } from '../../examples/invoices-hono/app.ts';
import { buildInvoicesNestApp } from '../../examples/invoices-nestjs/app.ts';
import { GATEHOUSE } from 'gatehouse-auth/nestjs';
import { BOOKKEEPING_CLIENT } from '../../examples/invoices/policies.ts';
import { testEngines } from '../helpers/databases.ts';
import { runNode, spawnNode, useProcessCleanup } from '../helpers/processes.ts';

const engines = await testEngines();
const PASSWORD = 'an uncommon passphrase for invoices';

interface Invoice {
  id: number;
  ownerId: number;
  customer: string;
  amountCents: number;
  status: string;
}

/** One host's example, built on a database: its Gatehouse, its server (not listening), its close. */
interface Built {
  readonly auth: { readonly gatehouse: Gatehouse };
  readonly server: Server;
  close(): Promise<void>;
}

const HOSTS = {
  Express: async (config: Config): Promise<Built> => {
    const built = await buildInvoicesExpressApp({ config, logger: createLogger({ level: 'silent' }) });
    return { ...built, server: createServer(built.app) };
  },
  Hono: (config: Config): Promise<Built> => buildInvoicesHonoApp({ config, logger: createLogger({ level: 'silent' }) }),
  NestJS: async (config: Config): Promise<Built> => {
    const { app, close } = await buildInvoicesNestApp({ config, logger: createLogger({ level: 'silent' }) });
    return { auth: { gatehouse: app.get<Gatehouse>(GATEHOUSE) }, server: app.getHttpServer() as Server, close };
  },
};

const cases = Object.keys(HOSTS).flatMap((host) => engines.map((engine) => ({ host: host as keyof typeof HOSTS, engine })));

describe.each(cases)('the invoices example on $host, on $engine.engine', ({ host, engine }) => {
  let built: Built;
  let server: Server;
  let url: string;
  let people = 0;

  beforeAll(async () => {
    const config = configFromSettings({ databaseUrl: await engine.createDatabaseUrl(), publicUrl: 'http://invoices.test' });
    built = await HOSTS[host](config);
    server = built.server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await built.close();
    await engine.dropAll();
  });

  const call = (path: string, init: RequestInit & { token?: string; key?: string; body?: string } = {}) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
    if (init.key !== undefined) headers['x-api-key'] = init.key;
    return fetch(`${url}${path}`, { ...init, headers });
  };
  const send = (method: string, path: string, body: object, auth: { token?: string; key?: string } = {}) => call(path, { method, body: JSON.stringify(body), ...auth });

  async function person(roles: string[] = []): Promise<{ id: number; token: string }> {
    const email = `person${++people}-${process.pid}@example.com`;
    const user = await built.auth.gatehouse.users.create({ email, password: PASSWORD, emailConfirmed: true, roles });
    const response = await send('POST', `${IDENTITY_PREFIX}/auth/token`, { email, password: PASSWORD });
    expect(response.status).toBe(200);
    return { id: user.id, token: ((await response.json()) as { accessToken: string }).accessToken };
  }

  async function createInvoice(token: string): Promise<Invoice> {
    const response = await send('POST', '/invoices', { customer: 'Acme Ltd', amountCents: 125_00 }, { token });
    expect(response.status).toBe(201);
    return (await response.json()) as Invoice;
  }

  it('lets the owner create, read and update an invoice, an accountant read it, and a stranger neither', async () => {
    const owner = await person();
    const accountant = await person(['Accountant']);
    const stranger = await person();
    const invoice = await createInvoice(owner.token);
    expect(invoice).toMatchObject({ ownerId: owner.id, customer: 'Acme Ltd', amountCents: 12500, status: 'draft' });
    expect((await call(`/invoices/${invoice.id}`, { token: owner.token })).status).toBe(200);
    expect((await call(`/invoices/${invoice.id}`, { token: accountant.token })).status).toBe(200);
    expect((await send('PATCH', `/invoices/${invoice.id}`, { status: 'sent' }, { token: accountant.token })).status).toBe(403);
    expect((await call(`/invoices/${invoice.id}`, { token: stranger.token })).status).toBe(403);
    expect(await (await call('/invoices', { token: stranger.token })).json()).toEqual({ invoices: [] });
    expect((await send('PATCH', `/invoices/${invoice.id}`, { status: 'sent' }, { token: owner.token })).status).toBe(200);
    expect((await call('/invoices/999999', { token: stranger.token })).status).toBe(404);
  });

  it('refuses a change to a paid invoice with its own 409, and a bad body with 400', async () => {
    const owner = await person();
    const invoice = await createInvoice(owner.token);
    expect((await send('PATCH', `/invoices/${invoice.id}`, { status: 'paid' }, { token: owner.token })).status).toBe(200);
    const conflict = await send('PATCH', `/invoices/${invoice.id}`, { amountCents: 1 }, { token: owner.token });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ status: 409, code: 'INVOICE_PAID', title: 'Conflict' });
    const invalid = await send('POST', '/invoices', { amountCents: -1 }, { token: owner.token });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('answers anonymous callers 401 on the invoices routes, before the body, and 200 on the health check', async () => {
    for (const response of [await call('/invoices'), await call('/invoices/1'), await send('POST', '/invoices', { amountCents: -1 })]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(await (await call('/invoices/health')).json()).toEqual({ status: 'ok' });
    // Gatehouse's endpoints live under the prefix only.
    expect((await send('POST', '/auth/token', { email: 'nobody@example.com', password: PASSWORD })).status).toBe(404);
  });

  it('lets the bookkeeping integration export with its API key, and keeps API keys and people apart', async () => {
    const owner = await person();
    const invoice = await createInvoice(owner.token);
    const key = await built.auth.gatehouse.apiKeys.create(BOOKKEEPING_CLIENT);
    const exported = await call('/integrations/invoices?status=draft', { key });
    expect(exported.status).toBe(200);
    const body = (await exported.json()) as { client: string; invoices: Invoice[] };
    expect(body.client).toBe(BOOKKEEPING_CLIENT);
    expect(body.invoices.map((item) => item.id)).toContain(invoice.id);
    expect((await call('/integrations/invoices', { key: await built.auth.gatehouse.apiKeys.create('crm') })).status).toBe(403);
    expect((await call('/integrations/invoices', { token: owner.token })).status).toBe(401);
    // An API key stands for no person: the Customers policy refuses it.
    expect((await call(`/invoices/${invoice.id}`, { key })).status).toBe(403);
  });
});

describe.each([
  ['Express', 'invoices-express'],
  ['Hono', 'invoices-hono'],
  ['NestJS', 'invoices-nestjs'],
])('the %s invoices example as a program', (host, folder) => {
  useProcessCleanup();

  it('compiles as a TypeScript program of its own', { timeout: 180_000 }, async () => {
    const checked = await runNode(['node_modules/typescript/bin/tsc', '--noEmit', '-p', `examples/${folder}`], {}, 150_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });

  it('runs main.ts and answers over HTTP', async () => {
    const [sqlite] = await testEngines();
    const databaseUrl = await sqlite!.createDatabaseUrl();
    try {
      const handle = spawnNode(['--conditions=gatehouse-source', '--import', 'tsx', `examples/${folder}/main.ts`], {
        DATABASE_URL: databaseUrl,
        PORT: '0',
        NODE_ENV: 'development',
        // The example's own compiler options (NestJS's decorators) for tsx, as `tsc -p` takes them.
        TSX_TSCONFIG_PATH: `examples/${folder}/tsconfig.json`,
      });
      const line = await handle.waitForLine(new RegExp(`Invoices \\(${host}\\) listening on http://`));
      const address = /listening on (http:\/\/[^\s"]+)/.exec(line)![1]!;
      expect(await (await fetch(`${address}/invoices/health`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${address}/invoices`)).status).toBe(401);
      expect((await handle.stop()).code).toBe(0);
    } finally {
      await sqlite!.dropAll();
    }
  });
});
