/** The auth cookie in black-box tests: sign in over JSON, read Set-Cookie, send it back. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './test-app.ts';

/** The auth cookie's Set-Cookie line of a response, or undefined. */
export function authSetCookie(response: LightMyRequestResponse, name = 'gh.auth'): string | undefined {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.find((line) => line.startsWith(`${name}=`));
}

/** `name=value` for a Cookie header, from a Set-Cookie line. */
export function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0]!;
}

/** Signs a new user in over JSON; the Cookie header value that carries the session. */
export async function signInWithCookie(ctx: TestApp, options: { rememberMe?: boolean; cookieName?: string } = {}) {
  const { cookieName = 'gh.auth', ...body } = options;
  const { user, password } = await ctx.createUser();
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password, ...body } });
  expect(response.statusCode).toBe(200);
  const setCookie = authSetCookie(response, cookieName)!;
  return { user, password, response, setCookie, cookie: cookiePair(setCookie) };
}

