/**
 * The invoices example (examples/invoices), driven as its users would: people registering and
 * signing in through Gatehouse under `/identity`, an accountant, a stranger, anonymous callers and
 * the bookkeeping integration with its API key, on SQLite and on PostgreSQL. Then its TypeScript
 * program is compiled (a misspelt policy name must not compile) and `main.ts` is run as a process.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { configFromSettings } from 'gatehouse-auth/fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInvoicesApp, IDENTITY_PREFIX } from '../../examples/invoices/app.ts';
import { BOOKKEEPING_CLIENT } from '../../examples/invoices/policies.ts';
import { testEngines } from '../helpers/databases.ts';
import { runNode, spawnNode, useProcessCleanup, waitUntil } from '../helpers/processes.ts';

const engines = await testEngines();
const PUBLIC_URL = 'http://invoices.test';
const PASSWORD = 'an uncommon passphrase for invoices';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = <T = Record<string, unknown>>(response: LightMyRequestResponse) => JSON.parse(response.body) as T;

interface Invoice {
  id: number;
  ownerId: number;
  customer: string;
  amountCents: number;
  status: string;
}

describe.each(engines)('the invoices example on $engine', (engine) => {
  let databaseUrl: string;
  let app: FastifyInstance;
  let people = 0;
  const newAddress = () => `person${++people}-${process.pid}@example.com`;
  const start = async () => {
    app = await buildInvoicesApp({ config: configFromSettings({ databaseUrl, publicUrl: PUBLIC_URL }) });
    await app.ready();
  };

  beforeAll(async () => {
    databaseUrl = await engine.createDatabaseUrl();
    await start();
  });
  afterAll(async () => {
    await app?.close();
    await engine.dropAll();
  });

  async function tokenFor(email: string): Promise<string> {
    const response = await app.inject({ method: 'POST', url: `${IDENTITY_PREFIX}/auth/token`, payload: { email, password: PASSWORD } });
    expect(response.statusCode).toBe(200);
    return json<{ accessToken: string }>(response).accessToken;
  }

  /** A person created through Gatehouse's user manager (as a seed or an admin task would), with a token. */
  async function person(roles: string[] = []): Promise<{ id: number; email: string; token: string }> {
    const user = await app.gatehouse.users.create({ email: newAddress(), password: PASSWORD, emailConfirmed: true, roles });
    return { id: user.id, email: user.email, token: await tokenFor(user.email) };
  }

  async function createInvoice(token: string, customer = 'Acme Ltd'): Promise<Invoice> {
    const response = await app.inject({ method: 'POST', url: '/invoices', headers: bearer(token), payload: { customer, amountCents: 125_00 } });
    expect(response.statusCode).toBe(201);
    return json<Invoice>(response);
  }

  const read = (id: number, headers: Record<string, string> = {}) => app.inject({ url: `/invoices/${id}`, headers });
  const update = (id: number, headers: Record<string, string>, payload: object = { status: 'sent' }) =>
    app.inject({ method: 'PATCH', url: `/invoices/${id}`, headers, payload });

  it('lets a person register under /identity, confirm from the mail, and take a token from /identity/auth/token; nothing answers at the root paths', async () => {
    const email = newAddress();
    const registered = await app.inject({ method: 'POST', url: `${IDENTITY_PREFIX}/account/register`, payload: { email, password: PASSWORD } });
    expect(registered.statusCode).toBe(202);
    // Without SMTP the confirmation mail lands in the dev outbox, in the same database (sent
    // after the answer: the time taken must not tell whether the address was known).
    const outbox = () => app.gatehouse.outbox.list({ recipient: email, limit: 1 });
    await waitUntil(async () => (await outbox()).length === 1, { timeoutMs: 5_000, what: 'the confirmation mail' });
    const [mail] = await outbox();
    const link = new URL(mail!.text.match(/https?:\/\/\S+/)![0]);
    expect(link.origin).toBe(PUBLIC_URL);
    expect(link.pathname).toBe(`${IDENTITY_PREFIX}/account/confirm-email`);
    expect(json(await app.inject({ url: `${link.pathname}${link.search}` }))).toEqual({ confirmed: true });

    const token = await tokenFor(email);
    expect(json(await app.inject({ url: '/invoices', headers: bearer(token) }))).toEqual({ invoices: [] });
    expect((await app.inject({ method: 'POST', url: '/auth/token', payload: { email, password: PASSWORD } })).statusCode).toBe(404);
  });

  it('lets the owner create, list, read and update their invoice', async () => {
    const owner = await person();
    const invoice = await createInvoice(owner.token);
    expect(invoice).toMatchObject({ ownerId: owner.id, customer: 'Acme Ltd', amountCents: 12500, status: 'draft' });
    expect(json(await app.inject({ url: '/invoices', headers: bearer(owner.token) }))).toEqual({ invoices: [invoice] });
    expect(json(await read(invoice.id, bearer(owner.token)))).toEqual(invoice);
    const updated = await update(invoice.id, bearer(owner.token), { status: 'sent', amountCents: 130_00 });
    expect(updated.statusCode).toBe(200);
    expect(json(updated)).toEqual({ ...invoice, status: 'sent', amountCents: 13000 });
    expect(json<Invoice>(await read(invoice.id, bearer(owner.token))).status).toBe('sent');
  });

  it('refuses any change to a paid invoice with its own 409, and tells only the owner so', async () => {
    const owner = await person();
    const stranger = await person();
    const invoice = await createInvoice(owner.token);
    expect((await update(invoice.id, bearer(owner.token), { status: 'paid' })).statusCode).toBe(200);
    const conflict = await update(invoice.id, bearer(owner.token), { amountCents: 1 });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(conflict)).toMatchObject({ status: 409, code: 'INVOICE_PAID', detail: 'A paid invoice cannot change.', title: 'Conflict' });
    expect(json<Invoice>(await read(invoice.id, bearer(owner.token))).amountCents).toBe(12500);
    // Gatehouse's own answers still come from its handler inside the routes' plugin.
    expect((await update(invoice.id, bearer(stranger.token), { amountCents: 1 })).statusCode).toBe(403);
    expect((await update(invoice.id, bearer(owner.token), { amountCents: -1 })).statusCode).toBe(400);
  });

  it('lets an accountant read anyone’s invoice but not update it (403)', async () => {
    const owner = await person();
    const accountant = await person(['Accountant']);
    const invoice = await createInvoice(owner.token);
    expect(json(await read(invoice.id, bearer(accountant.token)))).toEqual(invoice);
    const refused = await update(invoice.id, bearer(accountant.token));
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json<Invoice>(await read(invoice.id, bearer(owner.token))).status).toBe('draft');
  });

  it('refuses a stranger someone else’s invoice (403) and lists only their own', async () => {
    const owner = await person();
    const stranger = await person();
    const invoice = await createInvoice(owner.token);
    expect((await read(invoice.id, bearer(stranger.token))).statusCode).toBe(403);
    expect((await update(invoice.id, bearer(stranger.token))).statusCode).toBe(403);
    expect(json(await app.inject({ url: '/invoices', headers: bearer(stranger.token) }))).toEqual({ invoices: [] });
    // An invoice that does not exist is a 404, before any resource check.
    expect((await read(999_999, bearer(stranger.token))).statusCode).toBe(404);
  });

  it('answers anonymous callers 401 on the invoices routes and 200 on the health check, and checks credentials before the body', async () => {
    const invoice = await createInvoice((await person()).token);
    for (const response of [
      await app.inject({ url: '/invoices' }),
      await read(invoice.id),
      await update(invoice.id, {}),
      // No credentials and a bad body: 401, not 400 (authorization runs before validation).
      await app.inject({ method: 'POST', url: '/invoices', payload: { amountCents: -1 } }),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBeDefined();
    }
    expect(json(await app.inject({ url: '/invoices/health' }))).toEqual({ status: 'ok' });
    const invalid = await app.inject({ method: 'POST', url: '/invoices', headers: bearer((await person()).token), payload: { amountCents: -1 } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('lets the bookkeeping integration export with its API key, and keeps API keys and people apart', async () => {
    const owner = await person();
    const invoice = await createInvoice(owner.token, 'Globex');
    await update(invoice.id, bearer(owner.token), { status: 'paid' });
    const key = await app.gatehouse.apiKeys.create(BOOKKEEPING_CLIENT);

    const exported = await app.inject({ url: '/integrations/invoices?status=paid', headers: { 'x-api-key': key } });
    expect(exported.statusCode).toBe(200);
    const body = json<{ client: string; invoices: Invoice[] }>(exported);
    expect(body.client).toBe(BOOKKEEPING_CLIENT);
    expect(body.invoices.map((item) => item.id)).toContain(invoice.id);
    expect(body.invoices.every((item) => item.status === 'paid')).toBe(true);

    // Another client's key is authenticated but not bookkeeping's.
    const otherKey = await app.gatehouse.apiKeys.create('crm');
    expect((await app.inject({ url: '/integrations/invoices', headers: { 'x-api-key': otherKey } })).statusCode).toBe(403);
    expect((await app.inject({ url: '/integrations/invoices', headers: { 'x-api-key': `${key}x` } })).statusCode).toBe(401);
    // The route asks the ApiKey scheme only: a person's token is no credential there.
    expect((await app.inject({ url: '/integrations/invoices', headers: bearer(owner.token) })).statusCode).toBe(401);
    expect((await app.inject({ url: '/integrations/invoices' })).statusCode).toBe(401);
    // An API key stands for no person: the Customers policy refuses it.
    expect((await read(invoice.id, { 'x-api-key': key })).statusCode).toBe(403);
    expect((await update(invoice.id, { 'x-api-key': key })).statusCode).toBe(403);
  });

  it('keeps the invoices beside Gatehouse’s tables across a restart that runs both migrations again', async () => {
    const owner = await person();
    const invoice = await createInvoice(owner.token);
    await app.close();
    await start();
    // The same key ring signs and checks tokens, and the same table holds the invoice.
    expect(json(await read(invoice.id, bearer(owner.token)))).toEqual(invoice);
    expect(json(await read(invoice.id, bearer(await tokenFor(owner.email))))).toEqual(invoice);
  });
});

describe('the invoices example as a program', () => {
  useProcessCleanup();

  it('compiles as a TypeScript program of its own, where a misspelt policy name is a compile error', { timeout: 180_000 }, async () => {
    // typed-policies.check.ts marks each misspelt name with @ts-expect-error: the build fails if one compiles.
    // One program, checked and listed (--listFiles): the check covers that file.
    const checked = await runNode(['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'examples/invoices', '--listFiles'], {}, 150_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/examples\/invoices\/typed-policies\.check\.ts/);
  });

  it('runs main.ts and answers over HTTP', async () => {
    const [sqlite] = await testEngines();
    const databaseUrl = await sqlite!.createDatabaseUrl();
    try {
      const handle = spawnNode(['--conditions=gatehouse-source', '--import', 'tsx', 'examples/invoices/main.ts'], {
        DATABASE_URL: databaseUrl,
        PORT: '0',
        NODE_ENV: 'development',
      });
      const line = await handle.waitForLine(/Invoices listening on http:\/\//);
      const url = /Invoices listening on (http:\/\/[^\s"]+)/.exec(line)![1]!;
      const health = await fetch(`${url}/invoices/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const refused = await fetch(`${url}/invoices`);
      expect(refused.status).toBe(401);
      expect((await handle.stop()).code).toBe(0);
    } finally {
      await sqlite!.dropAll();
    }
  });
});
