/**
 * Request validation in an application built with `serverOptions()`: bodies are taken as sent,
 * while paths and query strings (text by nature) are coerced to their schema's types.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { json } from '../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  const settings = { databaseUrl: 'sqlite::memory:' };
  app = Fastify(serverOptions(configFromSettings(settings)));
  await app.register(gatehouse, { settings, fallbackPolicy: null });
  app.get<{ Params: { id: number }; Querystring: { page: number; tag?: string[] } }>(
    '/projects/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] },
        querystring: { type: 'object', properties: { page: { type: 'integer', default: 1 }, tag: { type: 'array', items: { type: 'string' } } } },
      },
    },
    async (request) => ({ id: request.params.id, page: request.query.page, tags: request.query.tag ?? [] }),
  );
  app.post<{ Body: { amount: number; name: string } }>(
    '/projects',
    { schema: { body: { type: 'object', properties: { amount: { type: 'integer' }, name: { type: 'string' } }, required: ['amount', 'name'] } } },
    async (request) => request.body,
  );
  await app.ready();
});
afterAll(() => app.close());

describe('Request validation of an application', () => {
  it('coerces a path parameter and the query string to their types, and fills defaults', async () => {
    expect(json(await app.inject({ url: '/projects/7' }))).toEqual({ id: 7, page: 1, tags: [] });
    expect(json(await app.inject({ url: '/projects/7?page=3&tag=a&tag=b' }))).toEqual({ id: 7, page: 3, tags: ['a', 'b'] });
    expect(json(await app.inject({ url: '/projects/7?tag=one' }))).toEqual({ id: 7, page: 1, tags: ['one'] });
  });

  it('still refuses a path or query value that is not of the type, with 400 problem+json', async () => {
    for (const url of ['/projects/seven', '/projects/0', '/projects/7?page=x']) {
      const response = await app.inject({ url });
      expect(response.statusCode, url).toBe(400);
      expect(json(response)).toMatchObject({ code: 'GH_VALIDATION_FAILED' });
    }
  });

  it('takes a JSON body as sent: no string for a number, no array for a string', async () => {
    expect(json(await app.inject({ method: 'POST', url: '/projects', payload: { amount: 5, name: 'a' } }))).toEqual({ amount: 5, name: 'a' });
    for (const payload of [{ amount: '5', name: 'a' }, { amount: 5, name: ['a'] }, { amount: 5, name: 5 }]) {
      const response = await app.inject({ method: 'POST', url: '/projects', payload });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(json(response)).toMatchObject({ code: 'GH_VALIDATION_FAILED' });
    }
  });
});
