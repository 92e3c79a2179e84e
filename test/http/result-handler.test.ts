/**
 * The 401/403 responses come from one replaceable result handler (ASP.NET's
 * IAuthorizationMiddlewareResultHandler): the decision stays the pipeline's, the answer is the
 * handler's.
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationResultHandler } from '../../src/http/authorization-result-handler.ts';
import { testEngines } from '../helpers/databases.ts';
import { bearer, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** Hides protected resources from callers who may not see them: 404 instead of 403, 401 kept. */
const hidingHandler: AuthorizationResultHandler = {
  challenge: (_request, reply) => reply.code(401).header('www-authenticate', 'Custom').send({ custom: 'challenge' }),
  forbid: (_request, reply, schemes) => reply.code(404).send({ custom: 'not found', schemes }),
};

describe('a replaced authorization result handler', () => {
  const ctx = useTestApp(sqlite!, { appOptions: { resultHandler: hidingHandler } });

  it('answers forbidden callers its own way, with the schemes the pipeline computed', async () => {
    const { user } = await ctx.createUser();
    const response = await ctx.app.inject({ url: '/content/premium', headers: bearer(await ctx.tokenFor(user)) });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ custom: 'not found', schemes: ['Bearer'] });
  });

  it('answers unauthenticated callers its own way', async () => {
    const response = await ctx.app.inject({ url: '/content/premium' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Custom');
  });

  it('is not consulted when authorization succeeds', async () => {
    const { user } = await ctx.createUser({ claims: [{ type: 'subscription', value: 'premium' }] });
    const response = await ctx.app.inject({ url: '/content/premium', headers: bearer(await ctx.tokenFor(user)) });
    expect(response.statusCode).toBe(200);
  });
});
