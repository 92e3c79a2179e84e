/**
 * Credential ids of every length WebAuthn allows (1 to 1,023 bytes, L3 §7.1): each registers,
 * signs in, and is renamed and removed by its owner through `/account/passkeys/:id` (Fastify's
 * default limit on a path parameter, 100 characters, would answer 414 from 76 bytes up). Longer
 * ids, and a response whose `id` is not the attested credential id, are refused at registration
 * with nothing stored; a sign-in naming an over-long id is a clear refusal.
 */
import type { LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { authSetCookie, cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const ORIGIN = 'http://localhost:3000';

const idOfBytes = (length: number) => randomBytes(length).toString('base64url');

describe.runIf(sqlite)('passkey credential ids', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN } });

  const registrationOptions = async (cookie: string) => {
    const response = await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } });
    expect(response.statusCode).toBe(200);
    return json<Parameters<SoftwareAuthenticator['register']>[0]>(response);
  };
  const postRegistration = (cookie: string, response: object) => ctx.app.inject({ method: 'POST', url: '/account/passkeys', headers: { cookie }, payload: { response } });
  const passkeysOf = async (cookie: string) => json<{ id: string; name: string }[]>(await ctx.app.inject({ url: '/account/passkeys', headers: { cookie } }));
  const signIn = async (authenticator: SoftwareAuthenticator, overrides: { id?: string } = {}) => {
    const options = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options' });
    const challengeCookie = cookiePair([options.headers['set-cookie']].flat().find((line) => line?.startsWith('gh.passkey='))!);
    const assertion = authenticator.assert(json<{ challenge: string; rpId: string }>(options), { origin: ORIGIN });
    const response = overrides.id === undefined ? assertion : { ...assertion, id: overrides.id, rawId: overrides.id };
    return ctx.app.inject({ method: 'POST', url: '/account/login/passkey', headers: { cookie: challengeCookie }, payload: { response } });
  };
  const expectRefusal = (response: LightMyRequestResponse, status: number) => {
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
  };

  it.each([1, 16, 75, 76, 200, 1023])('registers an id of %i bytes, signs in with it, renames and removes it', async (bytes) => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator({ credentialId: idOfBytes(bytes) });
    const created = await postRegistration(cookie, authenticator.register(await registrationOptions(cookie), { origin: ORIGIN }));
    expect(created.statusCode).toBe(201);
    expect(json(created)).toMatchObject({ id: authenticator.credentialId });

    expect((await signIn(authenticator)).statusCode).toBe(200);

    const path = `/account/passkeys/${authenticator.credentialId}`;
    const renamed = await ctx.app.inject({ method: 'PATCH', url: path, headers: { cookie }, payload: { name: 'Lost key' } });
    expect(renamed.statusCode).toBe(204);
    expect(await passkeysOf(cookie)).toEqual([expect.objectContaining({ id: authenticator.credentialId, name: 'Lost key' })]);

    const removed = await ctx.app.inject({ method: 'DELETE', url: path, headers: { cookie } });
    expect(removed.statusCode).toBe(204);
    const reissued = cookiePair(authSetCookie(removed)!);
    expect(await passkeysOf(reissued)).toEqual([]);
    expect((await signIn(authenticator)).statusCode).toBe(401);
  });

  it('refuses an id over 1,023 bytes, whether the response names it or only the authenticator data attests it', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const long = new SoftwareAuthenticator({ credentialId: idOfBytes(1024) });
    const named = await postRegistration(cookie, long.register(await registrationOptions(cookie), { origin: ORIGIN }));
    expectRefusal(named, 400);

    // The response names a short id; the authenticator data attests the long one.
    const attested = await postRegistration(cookie, long.register(await registrationOptions(cookie), { origin: ORIGIN, id: idOfBytes(16) }));
    expectRefusal(attested, 400);
    expect(json<{ errors: Record<string, string[]> }>(attested).errors).toEqual({ response: [expect.stringContaining('longer than 1,023 bytes')] });
    expect(await passkeysOf(cookie)).toEqual([]);
  });

  it('refuses a response whose id is not the attested credential id: nothing is stored', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    const other = idOfBytes(16);
    const refused = await postRegistration(cookie, authenticator.register(await registrationOptions(cookie), { origin: ORIGIN, id: other }));
    expectRefusal(refused, 400);
    expect(json<{ errors: Record<string, string[]> }>(refused).errors).toEqual({ response: [expect.stringContaining('not the credential id its authenticator attested')] });
    expect(await passkeysOf(cookie)).toEqual([]);
    expect((await signIn(authenticator)).statusCode).toBe(401);

    // `rawId` is held to the same id.
    const response = authenticator.register(await registrationOptions(cookie), { origin: ORIGIN });
    expectRefusal(await postRegistration(cookie, { ...response, rawId: other }), 400);
    expect(await passkeysOf(cookie)).toEqual([]);
  });

  it('answers a sign-in naming an over-long or unknown id with a clear refusal, and stays up', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const authenticator = new SoftwareAuthenticator();
    expect((await postRegistration(cookie, authenticator.register(await registrationOptions(cookie), { origin: ORIGIN }))).statusCode).toBe(201);

    expectRefusal(await signIn(authenticator, { id: idOfBytes(1024) }), 400);
    expectRefusal(await signIn(authenticator, { id: 'A'.repeat(100_000) }), 400);
    expectRefusal(await signIn(authenticator, { id: idOfBytes(1023) }), 401);
    expect((await ctx.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await signIn(authenticator)).statusCode).toBe(200);
  });

  it('answers a path naming an id no passkey can have (over 1,023 bytes) with a problem, not a stall', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const path = `/account/passkeys/${idOfBytes(1024)}`;
    for (const method of ['PATCH', 'DELETE'] as const) {
      const response = await ctx.app.inject({ method, url: path, headers: { cookie }, ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}) });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });
});

describe('passkeys on a server whose path parameters are too short for every credential id', () => {
  it('refuse to start, naming the option; serverOptions() gives the length', async () => {
    const settings = { databaseUrl: 'sqlite::memory:', publicUrl: ORIGIN };
    const short = Fastify();
    await expect(short.register(gatehouse, { settings, features: { passkeys: true } })).rejects.toThrow(/routerOptions\.maxParamLength 1364/);
    await short.close().catch(() => undefined);

    const long = Fastify(serverOptions(configFromSettings(settings)));
    await long.register(gatehouse, { settings, features: { passkeys: true } });
    await long.ready();
    await long.close();
  });
});
