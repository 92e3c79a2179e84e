/**
 * SEC-41 (docs/reference/tokens.md: refresh tokens are opaque random strings of ≥ 256 bits, stored only as
 * hashes, in families; a grace-window successor is kept only in a form a database reader cannot
 * use). Reads the database directly, as an attacker with a dump would, and pins that:
 *   - the refresh token is 43+ base64url characters (≥ 256 bits) and differs at every issue;
 *   - `refresh_tokens` holds its SHA-256 (hex) with its family and parent link, and no table
 *     holds the token itself, before or after rotation;
 *   - with REFRESH_REUSE_GRACE_SECONDS > 0, `grace_sealed` holds neither the successor refresh
 *     token nor the access token, in clear or in a base64url-decodable part, and the database
 *     holds the successor nowhere;
 * On each store engine.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { json, type TestApp, useTestApp } from '../helpers/test-app.ts';
import { type Pair, signIn } from '../helpers/refresh-tokens.ts';
import { dumpDatabase, tableRows } from './database-dump.ts';

const engines = await testEngines();

const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

async function rotate(ctx: TestApp, refreshToken: string): Promise<Pair> {
  const response = await ctx.app.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken } });
  expect(response.statusCode).toBe(200);
  return json<Pair>(response);
}

/** Every cell of every table that contains `secret`, as "table.column". */
async function cellsContaining(ctx: TestApp, secret: string): Promise<string[]> {
  const dump = await dumpDatabase(ctx.databaseUrl);
  expect(dump.length).toBeGreaterThan(0);
  return dump.flatMap(({ table, row }) =>
    Object.entries(row)
      .filter(([, value]) => value !== null && value.includes(secret))
      .map(([column]) => `${table}.${column}`),
  );
}

/** The cell as stored, plus every dot-, colon- or space-separated part decoded from base64url. */
function readings(cell: string): string[] {
  const parts = cell.split(/[.:\s]+/).filter((part) => part.length > 0);
  return [cell, ...parts.map((part) => Buffer.from(part, 'base64url').toString('latin1')), ...parts.map((part) => Buffer.from(part, 'hex').toString('latin1'))];
}

describe.each(engines)('refresh-token storage on $engine (SEC-41)', (engine) => {
  const ctx = useTestApp(engine);

  it('issues opaque tokens of at least 256 bits, different at every sign-in', async () => {
    const { user, password, pair } = await signIn(ctx);
    expect(pair.refreshToken).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(Buffer.from(pair.refreshToken, 'base64url').length * 8).toBeGreaterThanOrEqual(256);
    const seen = new Set([pair.refreshToken]);
    for (let i = 0; i < 5; i++) {
      const response = await ctx.app.inject({ method: 'POST', url: '/auth/token', payload: { email: user.email, password } });
      seen.add(json<Pair>(response).refreshToken);
    }
    expect(seen.size).toBe(6);
  });

  it('stores only the SHA-256 of each token, with its family and parent, and the token itself nowhere', async () => {
    const { user, pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    let rows = await tableRows(ctx.databaseUrl, 'refresh_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256Hex(r1));
    expect(await cellsContaining(ctx, r1)).toEqual([]);

    const r2 = (await rotate(ctx, r1)).refreshToken;
    rows = await tableRows(ctx.databaseUrl, 'refresh_tokens');
    expect(rows).toHaveLength(2);
    const first = rows.find((row) => row.token_hash === sha256Hex(r1));
    const second = rows.find((row) => row.token_hash === sha256Hex(r2));
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second!.family_id).toBe(first!.family_id);
    expect(second!.parent_id).toBe(first!.id);
    expect(first!.used_at).not.toBeNull();
    expect(second!.used_at).toBeNull();
    const families = await tableRows(ctx.databaseUrl, 'refresh_families');
    expect(families).toEqual([expect.objectContaining({ id: first!.family_id, user_id: String(user.id) })]);

    for (const token of [r1, r2]) expect(await cellsContaining(ctx, token), token).toEqual([]);
    for (const row of rows) for (const value of Object.values(row)) if (value !== null) for (const reading of readings(value)) {
      expect(reading).not.toContain(r1);
      expect(reading).not.toContain(r2);
    }
  });

  it('keeps no grace successor at all when the grace window is off (the default)', async () => {
    const { pair } = await signIn(ctx);
    await rotate(ctx, pair.refreshToken);
    const rows = await tableRows(ctx.databaseUrl, 'refresh_tokens');
    for (const row of rows) expect(row.grace_sealed).toBeNull();
  });
});

describe.each(engines)('grace-window successor storage on $engine (SEC-41, docs/reference/tokens.md)', (engine) => {
  const ctx = useTestApp(engine, { env: { REFRESH_REUSE_GRACE_SECONDS: '10' } });

  it('keeps the successor pair only sealed: grace_sealed reveals neither the new refresh token nor the access token', async () => {
    const { pair } = await signIn(ctx);
    const r1 = pair.refreshToken;
    const successor = await rotate(ctx, r1);
    const rows = await tableRows(ctx.databaseUrl, 'refresh_tokens');
    const used = rows.find((row) => row.token_hash === sha256Hex(r1))!;
    expect(used.grace_sealed).not.toBeNull();
    expect(used.grace_until).not.toBeNull();
    const signature = successor.accessToken.split('.')[2]!;
    for (const reading of readings(used.grace_sealed!)) {
      expect(reading).not.toContain(successor.refreshToken);
      expect(reading).not.toContain(signature);
      expect(reading).not.toContain('refreshToken');
      expect(reading).not.toContain('accessToken');
    }
    for (const secret of [successor.refreshToken, successor.accessToken, signature]) expect(await cellsContaining(ctx, secret)).toEqual([]);

    // The sealed pair is still what the service answers in the window.
    expect(await rotate(ctx, r1)).toMatchObject({ refreshToken: successor.refreshToken, accessToken: successor.accessToken });
  });
});
