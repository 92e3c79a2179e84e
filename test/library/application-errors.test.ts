/**
 * Errors thrown by an application's own handlers under the plugin: a 4xx `statusCode` (Fastify's
 * convention, which `@fastify/sensible`'s `httpErrors` and Fastify's own `FST_ERR_*` follow) keeps
 * its status in the problem+json answer; a message reaches the caller only when the error says it
 * may (`expose`, as `http-errors` sets for 4xx); a 5xx stays a generic 500 whatever it says.
 */
import Fastify, { errorCodes, type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';

/** What `@fastify/sensible`'s `httpErrors.conflict(message)` throws (an `http-errors` error). */
function httpError(status: number, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: status < 500 });
}

const thrown: Record<string, () => Error> = {
  plain409: () => Object.assign(new Error('invoice 7 row version 12 != 13'), { statusCode: 409 }),
  sensible422: () => httpError(422, 'The invoice has no lines.'),
  sensible403: () => httpError(403, 'Only the issuer may void an invoice.'),
  fastify414: () => new errorCodes.FST_ERR_MAX_PARAM_LENGTH('id'),
  plain400: () => Object.assign(new Error('bad'), { statusCode: 400 }),
  plain404: () => Object.assign(new Error('no invoice 7 in tenant 3'), { statusCode: 404 }),
  sensible503: () => httpError(503, 'postgres://billing:hunter2@db is down'),
  exposed500: () => Object.assign(new Error('secret internals'), { statusCode: 500, expose: true }),
};

let app: FastifyInstance;
const logged: string[] = [];

beforeAll(async () => {
  const settings = { databaseUrl: 'sqlite::memory:' };
  const logger = { level: 'error', stream: { write: (line: string) => logged.push(line) } };
  app = Fastify({ ...serverOptions(configFromSettings(settings)), logger });
  await app.register(gatehouse, { settings, fallbackPolicy: null });
  app.get<{ Params: { kind: string } }>('/throw/:kind', async (request) => {
    throw thrown[request.params.kind]!();
  });
  await app.ready();
});

afterAll(() => app.close());

const json = (response: LightMyRequestResponse) => JSON.parse(response.body) as Record<string, unknown>;
const answer = (kind: string) => app.inject({ url: `/throw/${kind}` });

describe('an error of the application’s own handler', () => {
  it('with a 4xx statusCode keeps its status, without a message it did not expose', async () => {
    const response = await answer('plain409');
    expect(response.statusCode).toBe(409);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toEqual({ type: 'about:blank', title: 'Conflict', status: 409 });
  });

  it('from httpErrors keeps its status and its message, meant for the caller', async () => {
    expect(json(await answer('sensible422'))).toEqual({ type: 'about:blank', title: 'Unprocessable Entity', status: 422, detail: 'The invoice has no lines.' });
    const forbidden = await answer('sensible403');
    expect(forbidden.statusCode).toBe(403);
    expect(json(forbidden)).toEqual({ type: 'about:blank', title: 'Forbidden', status: 403, detail: 'Only the issuer may void an invoice.' });
  });

  it('of Fastify’s own with a 4xx status keeps it, with its code', async () => {
    const response = await answer('fastify414');
    expect(response.statusCode).toBe(414);
    expect(json(response)).toEqual({ type: 'about:blank', title: 'URI Too Long', status: 414, code: 'FST_ERR_MAX_PARAM_LENGTH' });
  });

  it('with 400 or 404 is answered as Gatehouse answers those, as before', async () => {
    const invalid = await answer('plain400');
    expect(invalid.statusCode).toBe(400);
    expect(json(invalid)).toMatchObject({ code: 'GH_VALIDATION_FAILED', detail: 'The request is not valid.' });
    const missing = await answer('plain404');
    expect(missing.statusCode).toBe(404);
    expect(json(missing)).toMatchObject({ code: 'GH_NOT_FOUND', detail: 'There is no such resource.' });
  });

  it('with a 5xx status is a generic 500 that says nothing of it, and is logged', async () => {
    for (const kind of ['sensible503', 'exposed500']) {
      const response = await answer(kind);
      expect(response.statusCode).toBe(500);
      expect(json(response)).toEqual({
        type: 'urn:gatehouse:problem:internal',
        title: 'Internal Server Error',
        status: 500,
        detail: 'Something went wrong on our side.',
        code: 'GH_INTERNAL',
      });
    }
    expect(logged.join('')).toContain('unexpected error');
  });
});
