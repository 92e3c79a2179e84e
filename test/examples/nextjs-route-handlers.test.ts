/**
 * The Next.js example (examples/nextjs-route-handlers): its route handlers called as Next calls
 * them, `(request, { params })`, with real requests, against its Gatehouse on SQLite. A person
 * registers, confirms and takes a token through the catch-all route of Gatehouse's endpoints; the
 * document routes refuse anonymous callers (401), callers their policy refuses (403), and a
 * resource check refuses a stranger (403); the GraphQL route applies its fields' rules. Then the example is compiled as a program of its own,
 * its route files checked against Next's types.
 */
import { NextRequest } from 'next/server';
import type { PolicyName } from 'gatehouse-auth';
import { RequestRefusal, type WebGatehouse } from 'gatehouse-auth/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { runNode, useProcessCleanup, waitUntil } from '../helpers/processes.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://documents.test';
const PASSWORD = 'an uncommon passphrase for documents';
const EXAMPLE = '../../examples/nextjs-route-handlers';

type Handler = (request: NextRequest, context: { params: Promise<object> }) => Promise<Response>;
type RouteModule = Partial<Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', Handler>>;

interface Document {
  id: string;
  authorId: string;
  title: string;
}

describe('the Next.js route handlers example', () => {
  const saved = { ...process.env };
  let auth: WebGatehouse;
  let identity: RouteModule;
  let jwks: RouteModule;
  let health: RouteModule;
  let documents: RouteModule;
  let document: RouteModule;
  let graphql: RouteModule;
  let people = 0;

  beforeAll(async () => {
    // The example reads its settings from the environment, as it would under `next start`.
    Object.assign(process.env, { DATABASE_URL: await sqlite!.createDatabaseUrl(), PUBLIC_URL, LOG_LEVEL: 'silent' });
    ({ auth } = (await import(`${EXAMPLE}/lib/auth.ts`)) as { auth: WebGatehouse });
    identity = (await import(`${EXAMPLE}/app/identity/[...gatehouse]/route.ts`)) as RouteModule;
    jwks = (await import(`${EXAMPLE}/app/.well-known/jwks.json/route.ts`)) as RouteModule;
    health = (await import(`${EXAMPLE}/app/health/route.ts`)) as RouteModule;
    documents = (await import(`${EXAMPLE}/app/documents/route.ts`)) as RouteModule;
    document = (await import(`${EXAMPLE}/app/documents/[id]/route.ts`)) as RouteModule;
    graphql = (await import(`${EXAMPLE}/app/graphql/route.ts`)) as RouteModule;
  });
  afterAll(async () => {
    await auth?.close();
    await sqlite!.dropAll();
    process.env = saved;
  });

  /** A request to `path` with a bearer token and a JSON body when given. */
  const request = (method: string, path: string, { token, body }: { token?: string; body?: object } = {}) =>
    new NextRequest(`${PUBLIC_URL}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const params = (values: object = {}) => ({ params: Promise.resolve(values) });
  /** Through the catch-all route of Gatehouse's endpoints, as Next routes `/identity/…` to it. */
  const throughIdentity = (method: 'GET' | 'POST', path: string, init: { body?: object } = {}) =>
    identity[method]!(request(method, `/identity${path}`, init), params({ gatehouse: path.split('?')[0]!.split('/').slice(1) }));

  async function tokenFor(email: string): Promise<string> {
    const response = await throughIdentity('POST', '/auth/token', { body: { email, password: PASSWORD } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { accessToken: string }).accessToken;
  }

  async function person(roles: string[] = []): Promise<{ id: number; token: string }> {
    const user = await auth.gatehouse.users.create({ email: `person${++people}@example.com`, password: PASSWORD, emailConfirmed: true, roles });
    return { id: user.id, token: await tokenFor(user.email) };
  }

  async function expectProblem(response: Response, status: number): Promise<void> {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { status: number }).status).toBe(status);
  }

  it('lets a person register, confirm from the mail and take a token through the catch-all route', async () => {
    const email = 'newcomer@example.com';
    expect((await throughIdentity('POST', '/account/register', { body: { email, password: PASSWORD } })).status).toBe(202);
    const outbox = () => auth.gatehouse.outbox.list({ recipient: email, limit: 1 });
    await waitUntil(async () => (await outbox()).length === 1, { timeoutMs: 5_000, what: 'the confirmation mail' });
    const link = new URL((await outbox())[0]!.text.match(/https?:\/\/\S+/)![0]);
    expect(link.pathname).toBe('/identity/account/confirm-email');
    expect(await (await throughIdentity('GET', `/account/confirm-email${link.search}`)).json()).toEqual({ confirmed: true });
    const token = await tokenFor(email);
    const created = await documents.POST!(request('POST', '/documents', { token, body: { title: 'Minutes' } }), params());
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ title: 'Minutes' });
    expect((await jwks.GET!(request('GET', '/.well-known/jwks.json'), params())).status).toBe(200);
  });

  it('answers an anonymous caller 401 problem+json, and 200 on the route open to anyone', async () => {
    const refused = await documents.GET!(request('GET', '/documents'), params());
    await expectProblem(refused, 401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    await expectProblem(await document.GET!(request('GET', '/documents/1'), params({ id: '1' })), 401);
    await expectProblem(await documents.POST!(request('POST', '/documents', { body: { title: 'Anonymous' } }), params()), 401);
    expect(await (await health.GET!(request('GET', '/health'), params())).json()).toEqual({ status: 'ok' });
  });

  it('answers 403 problem+json to a person the policy refuses, and 200 with the documents to an editor', async () => {
    const author = await person();
    const editor = await person(['Editor']);
    const created = (await (await documents.POST!(request('POST', '/documents', { token: author.token, body: { title: 'Budget' } }), params())).json()) as Document;
    expect(created.authorId).toBe(String(author.id));
    await expectProblem(await documents.GET!(request('GET', '/documents', { token: author.token }), params()), 403);
    const listed = await documents.GET!(request('GET', '/documents', { token: editor.token }), params());
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(((await listed.json()) as { documents: Document[] }).documents).toContainEqual(created);
  });

  it('checks each document against its author: 200 for the author and an editor, 403 for a stranger, 404 for none', async () => {
    const author = await person();
    const editor = await person(['Editor']);
    const stranger = await person();
    const created = (await (await documents.POST!(request('POST', '/documents', { token: author.token, body: { title: 'Plans' } }), params())).json()) as Document;
    const read = (token: string, id = created.id) => document.GET!(request('GET', `/documents/${id}`, { token }), params({ id }));
    expect(await (await read(author.token)).json()).toEqual(created);
    expect((await read(editor.token)).status).toBe(200);
    await expectProblem(await read(stranger.token), 403);
    await expectProblem(await read(author.token, '999999'), 404);
    await expectProblem(await documents.POST!(request('POST', '/documents', { token: author.token, body: { title: '' } }), params()), 400);
  });

  it("serves the documents' GraphQL API: a person's own for any signed-in caller, every one for an editor, 401 for a credential that does not hold", async () => {
    const author = await person();
    const editor = await person(['Editor']);
    await documents.POST!(request('POST', '/documents', { token: author.token, body: { title: 'Letters' } }), params());
    const ask = async (query: string, token?: string) => {
      const response = await graphql.POST!(request('POST', '/graphql', { ...(token ? { token } : {}), body: { query } }), params());
      return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] } };
    };
    expect((await ask('{ myDocuments { title } }', author.token)).body.data).toEqual({ myDocuments: [{ title: 'Letters' }] });
    const anonymous = await ask('{ myDocuments { title } }');
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const refused = await ask('{ allDocuments { title } }', author.token);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(((await ask('{ allDocuments { title } }', editor.token)).body.data?.allDocuments as unknown[]).length).toBeGreaterThan(0);
    expect((await ask('{ myDocuments { title } }', 'not-a-token')).status).toBe(401);
  });

  it('tells the caller of a request: anonymous without a credential, refused with one that does not hold', async () => {
    const author = await person();
    expect((await auth.authenticate(request('GET', '/anything'))).isAuthenticated).toBe(false);
    expect((await auth.authenticate(request('GET', '/anything', { token: author.token }))).subject).toBe(String(author.id));
    const refusal = await auth.authenticate(request('GET', '/anything', { token: 'not-a-token' })).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RequestRefusal);
    await expectProblem(auth.errorResponse(refusal, request('GET', '/anything')), 401);
    await expectProblem(await documents.GET!(request('GET', '/documents', { token: 'not-a-token' }), params()), 401);
  });

  it('refuses an unknown policy name where the handler is protected, not at its first request', () => {
    expect(() => auth.route(() => new Response(null), { authorize: { policy: 'Editor' as PolicyName } })).toThrow(/No authorization policy is named "Editor"/);
  });
});

describe('the Next.js route handlers example as a program', () => {
  useProcessCleanup();

  it('compiles as a TypeScript program of its own, its route files checked against Next’s types', { timeout: 180_000 }, async () => {
    const checked = await runNode(['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'examples/nextjs-route-handlers'], {}, 150_000);
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  });
});
