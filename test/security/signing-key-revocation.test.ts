/**
 * docs/reference/tokens.md (key ring), SEC-05 — signing-key rotation and revocation. Pins that:
 *   - `keyRing.revoke(kid)` of the current key rotates first, then drops the key at once: tokens
 *     it signed (and tokens freshly forged with its private key) stop working, a token of the new
 *     key works, and the JWKS no longer lists the revoked kid;
 *   - revoking an older, non-current key drops it and leaves the current one working;
 *   - after `rotate()`, tokens of the previous key still verify (old keys verify until their
 *     tokens expire) while new tokens are signed with the new key, and the JWKS lists both;
 *   - a revocation made by another instance on the same database reaches this one within 5 s.
 */
import { describe, expect, it, vi } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, startTestApp, useTestApp } from '../helpers/test-app.ts';
import { decodeSegment, expectInvalidToken, forge } from './jwt-forge.ts';

const engines = await testEngines();

describe.each(engines)('signing-key rotation and revocation on $engine (docs/reference/tokens.md, SEC-05)', (engine) => {
  const ctx = useTestApp(engine);

  async function me(token: string) {
    return ctx.app.inject({ url: '/me', headers: bearer(token) });
  }

  async function jwksKids(): Promise<string[]> {
    const response = await ctx.app.inject({ url: '/.well-known/jwks.json' });
    expect(response.statusCode).toBe(200);
    return json<{ keys: { kid: string }[] }>(response).keys.map((key) => key.kid);
  }

  it('stops a token of the current key once it is revoked; a token of the new key works; JWKS drops the kid', async () => {
    const { user } = await ctx.createUser({ userName: 'revocation-user' });
    const oldKey = ctx.services.keyRing.current;
    const oldPrivateKey = await oldKey.signKey();
    const token = await ctx.tokenFor(user);
    expect(decodeSegment(token, 0).kid).toBe(oldKey.kid);
    expect((await me(token)).statusCode).toBe(200);
    expect(await jwksKids()).toContain(oldKey.kid);

    const { revoked, newKid } = await ctx.services.keyRing.revoke(oldKey.kid);
    expect(revoked).toBe(true);
    expect(newKid).toEqual(expect.any(String));
    expect(newKid).not.toBe(oldKey.kid);
    expect(ctx.services.keyRing.current.kid).toBe(newKid);

    const refused = await me(token);
    expectInvalidToken(refused);
    expect(refused.body).not.toContain('revocation-user');
    // Not only the old token: nothing the revoked private key signs is accepted any more.
    expectInvalidToken(await me(await forge(ctx, user, { header: { kid: oldKey.kid }, privateKey: oldPrivateKey })));

    const fresh = await ctx.tokenFor(user);
    expect(decodeSegment(fresh, 0).kid).toBe(newKid);
    const accepted = await me(fresh);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.body).toBe('revocation-user');

    expect(await jwksKids()).toEqual([newKid]);
    // It stays revoked after the ring re-reads the store.
    await ctx.services.keyRing.refresh();
    expectInvalidToken(await me(token));
    expect(await jwksKids()).not.toContain(oldKey.kid);
  });

  it('keeps verifying tokens of the previous key after rotate(), signs new ones with the new key', async () => {
    const { user } = await ctx.createUser({ userName: 'rotation-user' });
    const oldKid = ctx.services.keyRing.current.kid;
    const oldToken = await ctx.tokenFor(user);
    const newKid = await ctx.services.keyRing.rotate();
    expect(newKid).not.toBe(oldKid);
    expect(ctx.services.keyRing.current.kid).toBe(newKid);

    const old = await me(oldToken);
    expect(old.statusCode).toBe(200);
    expect(old.body).toBe('rotation-user');
    const newToken = await ctx.tokenFor(user);
    expect(decodeSegment(newToken, 0).kid).toBe(newKid);
    expect((await me(newToken)).statusCode).toBe(200);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));
  });

  it('revokes an older, non-current key without touching the current one', async () => {
    const { user } = await ctx.createUser();
    const oldKid = ctx.services.keyRing.current.kid;
    const oldToken = await ctx.tokenFor(user);
    const currentKid = await ctx.services.keyRing.rotate();
    const currentToken = await ctx.tokenFor(user);
    expect((await me(oldToken)).statusCode).toBe(200);

    expect(await ctx.services.keyRing.revoke(oldKid)).toEqual({ revoked: true, newKid: null });
    expectInvalidToken(await me(oldToken));
    expect((await me(currentToken)).statusCode).toBe(200);
    expect(ctx.services.keyRing.current.kid).toBe(currentKid);
    expect(await jwksKids()).toEqual([currentKid]);
    // Revoking it again is a no-op that says so.
    expect(await ctx.services.keyRing.revoke(oldKid)).toEqual({ revoked: false, newKid: null });
    expect(ctx.services.keyRing.current.kid).toBe(currentKid);
  });

  it('reports an unknown kid as not revoked, and changes nothing', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    const kid = ctx.services.keyRing.current.kid;
    expect(await ctx.services.keyRing.revoke('no-such-kid')).toEqual({ revoked: false, newKid: null });
    expect(ctx.services.keyRing.current.kid).toBe(kid);
    expect((await me(token)).statusCode).toBe(200);
  });

  it('refuses tokens of a key revoked by ANOTHER instance on the same database within 5 seconds', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    expect((await me(token)).statusCode).toBe(200);
    const other = await startTestApp(ctx.databaseUrl);
    try {
      const kid = ctx.services.keyRing.current.kid;
      expect(other.services.keyRing.current.kid).toBe(kid);
      const { newKid } = await other.services.keyRing.revoke(kid);
      expect(newKid).not.toBeNull();
      // The other instance refuses it at once.
      expectInvalidToken(await other.app.inject({ url: '/me', headers: bearer(token) }));
      // This one learns of it by polling the store, within the contract's 5 seconds.
      await vi.waitFor(
        async () => {
          expect((await me(token)).statusCode).toBe(401);
        },
        { timeout: 5_000, interval: 200 },
      );
      expect(await jwksKids()).toEqual([newKid]);
      // And it accepts the other instance's new tokens.
      expect((await me(await other.tokenFor(user))).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
