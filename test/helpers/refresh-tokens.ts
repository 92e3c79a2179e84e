/** Shared steps of the refresh-token suites: a signed-in user with a token pair, and a refresh. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { json, type TestApp } from './test-app.ts';

export interface Pair {
  accessToken: string;
  refreshToken: string;
}

/** A new user signed in through `POST /auth/token` (200 asserted), with the pair it received. */
export async function signIn(ctx: TestApp) {
  const { user, password } = await ctx.createUser();
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return { user, password, pair: json<Pair>(response) };
}

/** `POST /auth/refresh` with the token in the body. */
export function refresh(ctx: TestApp, refreshToken: string): Promise<LightMyRequestResponse> {
  return ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
}
