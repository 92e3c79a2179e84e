/**
 * The OpenAPI 3.1 document of the HTTP routes: valid against the OpenAPI 3.1 schema, built from the
 * routes' own schemas, served anonymously when the application turns it on and only then; the
 * reference service serves it in development and not in production.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { startService, useProcessCleanup } from '../helpers/processes.ts';
import { bearer, json, type TestApp, startTestApp } from '../helpers/test-app.ts';
import Fastify from 'fastify';
import { AuthenticateResult, type AuthenticationHandler } from 'gatehouse-auth';
import { configFromSettings, gatehouse, type OpenApiOptions, serverOptions } from 'gatehouse-auth/fastify';

const sqlite = (await testEngines()).find((engine) => engine.engine === 'sqlite')!;
const PRODUCTION = { NODE_ENV: 'production', PUBLIC_URL: 'https://gatehouse.example', KEYRING_SECRET: 'a production secret of enough length for the ring', SMTP_URL: 'smtp://127.0.0.1:2525' };

interface Operation {
  responses?: Record<string, { description: string; content?: unknown }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[]; additionalProperties?: boolean } }> };
  parameters?: { in: string; name: string }[];
  security?: Record<string, string[]>[];
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, string>> };
}

describe('the OpenAPI document, turned on', () => {
  let ctx: TestApp;
  let document: Document;

  beforeAll(async () => {
    // A host name in PUBLIC_URL, so that the passkey routes are on and documented too.
    ctx = await startTestApp(await sqlite.createDatabaseUrl(), { env: { PUBLIC_URL: 'http://localhost:3000' }, appOptions: { openapi: true } });
    // Anonymous: a bad credential is not even read.
    const response = await ctx.app.inject({ url: '/openapi.json', headers: bearer('garbage.token.here') });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    document = json<Document>(response);
  });
  afterAll(async () => {
    await ctx?.close();
    await sqlite.dropAll();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toEqual({ title: 'gatehouse-auth', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists the routes with their methods, and neither itself nor static files', () => {
    expect(Object.keys(document.paths['/auth/token']!)).toEqual(['post']);
    expect(Object.keys(document.paths['/account/register']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(document.paths['/me']!)).toEqual(['get']);
    expect(Object.keys(document.paths['/account/passkeys/{id}']!).sort()).toEqual(['delete', 'patch']);
    expect(Object.keys(document.paths['/account/login/passkey']!)).toEqual(['post']);
    // The admin console's page of a user shares the path of the admin API's DELETE.
    expect(Object.keys(document.paths['/admin/users/{id}']!).sort()).toEqual(['delete', 'get']);
    expect(document.paths['/admin/users/{id}']!.delete!.parameters).toEqual([expect.objectContaining({ in: 'path', name: 'id' })]);
    expect(document.paths).not.toHaveProperty('/openapi.json');
    expect(Object.keys(document.paths).filter((path) => path.includes('*'))).toEqual([]);
  });

  it('describes request bodies by the schemas that validate them', () => {
    const token = document.paths['/auth/token']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(token.properties!).sort()).toEqual(['email', 'organizationId', 'password', 'setCookie', 'twoFactorCode', 'userName']);
    expect(token.required).toEqual(['password']);
    expect(token.additionalProperties).toBe(false);
    const register = document.paths['/account/register']!.post!.requestBody!.content['application/json']!.schema;
    expect(register.required).toEqual(['email', 'password']);
    expect(Object.keys(register.properties!)).toContain('userName');
  });

  it('names the schemes each route accepts, as the pipeline resolved its policy', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer', 'cookie']);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(document.paths['/auth/token']!.post!.security).toEqual([]);
    expect(document.paths['/me']!.get!.security).toEqual([{ bearer: [] }, { apiKey: [] }, { cookie: [] }]);
    expect(document.paths['/integrations/whoami']!.get!.security).toEqual([{ apiKey: [] }]);
    // GraphQL reads credentials when they come, and runs without them.
    expect(document.paths['/graphql']!.post!.security).toEqual([{}, { bearer: [] }, { apiKey: [] }, { cookie: [] }]);
  });

  /** The one success (2xx) status the document states for an operation. */
  function documentedSuccess(path: string, method: string): number {
    const statuses = Object.keys(document.paths[path]![method]!.responses ?? {}).filter((status) => /^2\d\d$/.test(status));
    expect(statuses, `${method} ${path}`).toHaveLength(1);
    return Number(statuses[0]);
  }

  it('states the success status each route really answers', async () => {
    const { user: admin, password } = await ctx.createUser({ roles: ['Admin'] });
    const { user: other } = await ctx.createUser();
    const token = await ctx.tokenFor(admin);
    const calls: [string, string, () => Promise<{ statusCode: number }>][] = [
      ['/account/register', 'post', () => ctx.app.inject({ method: 'POST', url: '/account/register', payload: { email: 'new@example.com', password: 'a long enough password' } })],
      ['/account/forgot-password', 'post', () => ctx.app.inject({ method: 'POST', url: '/account/forgot-password', payload: { email: admin.email } })],
      ['/auth/token', 'post', () => ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: admin.email, password } })],
      ['/me', 'get', () => ctx.app.inject({ url: '/me', headers: bearer(token) })],
      ['/admin/users/{id}/lock', 'post', () => ctx.app.inject({ method: 'POST', url: `/admin/users/${other.id}/lock`, headers: bearer(token) })],
      ['/admin/users/{id}/roles', 'post', () => ctx.app.inject({ method: 'POST', url: `/admin/users/${other.id}/roles`, headers: bearer(token), payload: { role: 'Auditor' } })],
      ['/account/sessions', 'get', () => ctx.app.inject({ url: '/account/sessions', headers: bearer(token) })],
    ];
    for (const [path, method, call] of calls) expect((await call()).statusCode, `${method} ${path}`).toBe(documentedSuccess(path, method));
    const created = await ctx.app.inject({ method: 'POST', url: '/documents', headers: bearer(token), payload: { title: 'Minutes', body: 'Nothing happened.' } });
    expect(created.statusCode).toBe(documentedSuccess('/documents', 'post'));
    const removed = await ctx.app.inject({ method: 'DELETE', url: `/documents/${json<{ id: number }>(created).id}`, headers: bearer(token) });
    expect(removed.statusCode).toBe(documentedSuccess('/documents/{id}', 'delete'));
    const { refreshToken } = json<{ refreshToken: string }>(await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: admin.email, password } }));
    const revoked = await ctx.app.inject({ method: 'POST', url: '/auth/revoke', payload: { refreshToken } });
    expect(revoked.statusCode).toBe(documentedSuccess('/auth/revoke', 'post'));
    // Answered as the contract says, driven elsewhere (a passkey needs an authenticator).
    expect(documentedSuccess('/account/passkeys', 'post')).toBe(201);
    expect(documentedSuccess('/account/passkeys/{id}', 'delete')).toBe(204);
    expect(documentedSuccess('/account/logout', 'post')).toBe(204);
    expect(document.paths['/account/logout']!.post!.responses!['204']).not.toHaveProperty('content');
  });

  it('leaves the routes as they were: validation, protection and 404s', async () => {
    const unknownField = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: 'a@example.com', password: 'x', extra: 1 } });
    expect(unknownField.statusCode).toBe(400);
    expect((await ctx.app.inject({ url: '/me' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ url: '/openapi.yaml' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ url: '/documentation/json' })).statusCode).toBe(404);
  });
});

describe("the OpenAPI document of an application with a scheme of its own", () => {
  const partnerScheme: AuthenticationHandler = {
    scheme: 'Partner',
    authenticate: () => AuthenticateResult.noResult(),
    challenge: () => ({ wwwAuthenticate: 'Partner' }),
  };

  async function documentOf(openapi: true | OpenApiOptions, features = {}): Promise<Document> {
    const settings = { databaseUrl: 'sqlite::memory:' };
    const app = Fastify(serverOptions(configFromSettings(settings)));
    try {
      await app.register(gatehouse, { settings, schemes: [partnerScheme], openapi, features });
      app.post('/partner/orders', { config: { authorization: { authorize: [{ schemes: ['Partner'] }] }, successStatus: 201 } }, async (_, reply) => reply.code(201).send({}));
      await app.ready();
      const document = json<Document>(await app.inject({ url: '/openapi.json' }));
      const result = await new Validator().validate(structuredClone(document) as unknown as Record<string, unknown>);
      expect(result.errors ?? []).toEqual([]);
      return document;
    } finally {
      await app.close();
    }
  }

  it('lists the scheme among the security schemes and on its routes, with their success status', async () => {
    const document = await documentOf(true);
    expect(document.components.securitySchemes.Partner).toMatchObject({ type: 'http', scheme: 'Partner' });
    expect(document.paths['/partner/orders']!.post!.security).toEqual([{ Partner: [] }]);
    expect(Object.keys(document.paths['/partner/orders']!.post!.responses!)).toEqual(['201']);
  });

  it('describes the scheme as the application says, and leaves out the schemes that are off', async () => {
    const document = await documentOf({ securitySchemes: { Partner: { type: 'apiKey', in: 'header', name: 'X-Partner' } } }, { tokens: false });
    expect(document.components.securitySchemes.Partner).toEqual({ type: 'apiKey', in: 'header', name: 'X-Partner' });
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['Partner', 'apiKey', 'cookie']);
  });

  it('refuses a description of a scheme no one registered', async () => {
    await expect(documentOf({ securitySchemes: { Partners: { type: 'http', scheme: 'partner' } } })).rejects.toThrow(
      /openapi.securitySchemes: no authentication scheme is registered as "Partners"; did you mean "Partner"\?/,
    );
  });
});

describe('the OpenAPI document, left off', () => {
  it('is not served when the application does not ask for it', async () => {
    const ctx = await startTestApp(await sqlite.createDatabaseUrl());
    try {
      const response = await ctx.app.inject({ url: '/openapi.json' });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(ctx.app.hasDecorator('swagger')).toBe(false);
    } finally {
      await ctx.close();
      await sqlite.dropAll();
    }
  });
});

describe('the OpenAPI document, at a path of the application', () => {
  it('is served at that path with the application\'s info, and not at the default path', async () => {
    const ctx = await startTestApp(await sqlite.createDatabaseUrl(), { appOptions: { openapi: { path: '/api/openapi.json', info: { title: 'Invoices', version: '2.0.0' } } } });
    try {
      const response = await ctx.app.inject({ url: '/api/openapi.json' });
      expect(response.statusCode).toBe(200);
      expect(json<Document>(response).info).toEqual({ title: 'Invoices', version: '2.0.0' });
      expect((await ctx.app.inject({ url: '/openapi.json' })).statusCode).toBe(404);
    } finally {
      await ctx.close();
      await sqlite.dropAll();
    }
  });
});

describe('the reference service', () => {
  useProcessCleanup();

  it('serves the document in development and not in production', async () => {
    for (const [env, status] of [[{ NODE_ENV: 'development' }, 200], [PRODUCTION, 404]] as const) {
      const service = await startService({ ...env, DATABASE_URL: await sqlite.createDatabaseUrl(), PORT: '0' });
      try {
        const response = await fetch(`${service.url}/openapi.json`);
        expect(response.status, env.NODE_ENV).toBe(status);
        if (status === 200) expect(((await response.json()) as Document).openapi).toBe('3.1.0');
      } finally {
        await service.stop();
      }
    }
    await sqlite.dropAll();
  });
});
