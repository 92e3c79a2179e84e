/**
 * SEC-42..SEC-47 — the `X-Api-Key` scheme under attack. Pins that:
 *   - no header, an empty one or whitespace only → 401 `Missing API key` with
 *     `WWW-Authenticate: ApiKey` on `/integrations/whoami` (SEC-42);
 *   - anything but the exact bytes of one valid key → 401 `Invalid API key`: an oversized value,
 *     a NUL byte, surrounding spaces, another case, Unicode look-alikes, the right public id with
 *     a wrong secret, keys sharing a prefix with a valid one, a repeated header (SEC-43, SEC-45);
 *   - the query string is never a carrier (`?api_key=`, `?X-Api-Key=`) (SEC-44);
 *   - a revoked client's keys fail at once, with no positive cache (SEC-46);
 *   - the key is stored only as a hash: neither the whole key nor its secret part appears
 *     anywhere in the database (read directly, not through the store) (SEC-46);
 *   - an API-key principal acts for no user: 403 `policy: ["ApiKey"]` on a user-only endpoint,
 *     before the body is even looked at (SEC-47).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';
import { dumpDatabase, tableRows } from './database-dump.ts';

const engines = await testEngines();

const WHOAMI = '/integrations/whoami';
const KEY_PATTERN = /^ghk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

function parts(key: string): { publicId: string; secret: string } {
  const match = KEY_PATTERN.exec(key);
  if (!match) throw new Error(`Not an API key: ${key}`);
  return { publicId: match[1]!, secret: match[2]! };
}

/** The same character set, another character at `index`. */
function changeAt(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe.each(engines)('API key attacks on $engine (SEC-42..47)', (engine) => {
  const ctx = useTestApp(engine);

  async function whoami(headers: Record<string, string | string[]>, url = WHOAMI) {
    return ctx.app.inject({ url, headers: headers as Record<string, string> });
  }

  function expectRefused(response: Awaited<ReturnType<typeof whoami>>, detail: 'Missing API key' | 'Invalid API key', label?: string) {
    expect(response.statusCode, label).toBe(401);
    expect(response.headers['www-authenticate'], label).toBe('ApiKey');
    expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
    const body = json(response);
    expect(body, label).toMatchObject({ status: 401, title: 'Unauthorized', detail });
    expect(body, label).not.toHaveProperty('client');
  }

  it('answers a valid key (baseline: the negative cases below differ from it in one way)', async () => {
    const key = await ctx.apiKey('baseline-client');
    expect(KEY_PATTERN.test(key)).toBe(true);
    const response = await whoami({ 'x-api-key': key });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ client: 'baseline-client' });
  });

  it('says "Missing API key" with WWW-Authenticate: ApiKey for no header, an empty one, or whitespace (SEC-42)', async () => {
    await ctx.apiKey('someone');
    expectRefused(await whoami({}), 'Missing API key', 'no header');
    for (const value of ['', ' ', '   ', '\t']) {
      expectRefused(await whoami({ 'x-api-key': value }), 'Missing API key', JSON.stringify(value));
    }
  });

  it('says "Invalid API key" for anything but the exact bytes of a valid key (SEC-43, SEC-45)', async () => {
    const key = await ctx.apiKey('victim');
    const other = await ctx.apiKey('other');
    const { publicId, secret } = parts(key);
    const cases: [string, string][] = [
      ['10 KB value', `${key}${'A'.repeat(10 * 1024)}`],
      ['10 KB junk', 'x'.repeat(10 * 1024)],
      ['NUL byte appended', `${key}\u0000`],
      ['NUL byte inside', `ghk_${publicId}_\u0000${secret.slice(1)}`],
      ['leading spaces', `  ${key}`],
      ['trailing spaces', `${key}  `],
      ['upper-cased', key.toUpperCase()],
      ['lower-cased', key.toLowerCase()],
      ['secret case-swapped', `ghk_${publicId}_${[...secret].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')}`],
      ['Unicode look-alike underscore', key.replaceAll('_', '\uFF3F')],
      ['Unicode look-alike prefix', key.replace('ghk', 'ɡhk')],
      ['right public id, wrong secret', `ghk_${publicId}_${'A'.repeat(43)}`],
      ['right public id, another key\'s secret', `ghk_${publicId}_${parts(other).secret}`],
      ['another key\'s public id, right secret', `ghk_${parts(other).publicId}_${secret}`],
      ['last character changed', changeAt(key, key.length - 1)],
      ['first secret character changed', changeAt(key, 'ghk_'.length + 16 + 1)],
      ['one character short', key.slice(0, -1)],
      ['one character long', `${key}A`],
      ['secret only', secret],
      ['public id only', `ghk_${publicId}`],
      ['prefix of 8 characters', key.slice(0, 8)],
      ['prefix of 31 characters', key.slice(0, 31)],
      ['base64 padding', `${key}=`],
      ['SQL', `ghk_${publicId}_' OR '1'='1`],
      ['wildcard', `ghk_%_${secret}`],
      ['Bearer-style', `Bearer ${key}`],
    ];
    for (const [label, value] of cases) {
      expectRefused(await whoami({ 'x-api-key': value }), 'Invalid API key', label);
    }
    // The valid key still works (nothing above locked it or broke it).
    expect((await whoami({ 'x-api-key': key })).statusCode).toBe(200);
  });

  it('refuses two X-Api-Key headers, even when both are valid (SEC-45)', async () => {
    const key = await ctx.apiKey('twice');
    const other = await ctx.apiKey('twice-other');
    for (const values of [[key, key], [key, other], [key, 'junk'], ['junk', key]]) {
      const response = await whoami({ 'x-api-key': values });
      expect(response.statusCode, values.join(' | ').slice(0, 30)).toBe(401);
      expect(json(response).detail).toBe('Invalid API key');
    }
  });

  it('never reads a key from the query string (SEC-44)', async () => {
    const key = await ctx.apiKey('query-client');
    for (const query of [`api_key=${key}`, `X-Api-Key=${key}`, `x-api-key=${key}`, `apikey=${key}`, `key=${key}`]) {
      expectRefused(await whoami({}, `${WHOAMI}?${query}`), 'Missing API key', query.slice(0, 10));
      const me = await ctx.app.inject({ url: `/me?${query}` });
      expect(me.statusCode, `/me?${query.slice(0, 10)}`).toBe(401);
    }
  });

  it('refuses a revoked client\'s keys at once (SEC-46)', async () => {
    const first = await ctx.apiKey('revoked-client');
    const second = await ctx.apiKey('revoked-client');
    const bystander = await ctx.apiKey('bystander');
    for (const key of [first, second, bystander]) expect((await whoami({ 'x-api-key': key })).statusCode).toBe(200);
    expect(await ctx.app.gatehouse.apiKeys.revoke('revoked-client')).toBe(2);
    expectRefused(await whoami({ 'x-api-key': first }), 'Invalid API key', 'first key');
    expectRefused(await whoami({ 'x-api-key': second }), 'Invalid API key', 'second key');
    expect((await ctx.app.inject({ url: '/me', headers: { 'x-api-key': first } })).statusCode).toBe(401);
    // Another client is not affected; revoking again reports nothing left to revoke.
    expect((await whoami({ 'x-api-key': bystander })).statusCode).toBe(200);
    expect(await ctx.app.gatehouse.apiKeys.revoke('revoked-client')).toBe(0);
  });

  it('stores the key only as a hash: neither the key nor its secret appears anywhere in the database (SEC-46)', async () => {
    const key = await ctx.apiKey('hashed-client');
    const { publicId, secret } = parts(key);
    expect((await whoami({ 'x-api-key': key })).statusCode).toBe(200);
    // The row exists (so the search below looked in the right place)…
    const rows = await tableRows(ctx.databaseUrl, 'api_keys');
    const row = rows.find((candidate) => Object.values(candidate).includes(publicId));
    expect(row).toBeDefined();
    expect(row).toMatchObject({ client: 'hashed-client' });
    // …and no cell of any table holds the key, its secret, or the secret's raw bytes in another encoding.
    const secretBytes = Buffer.from(secret, 'base64url');
    const forbidden = [key, secret, secretBytes.toString('hex'), secretBytes.toString('base64'), secret.slice(0, 24)];
    const dump = await dumpDatabase(ctx.databaseUrl);
    expect(dump.length).toBeGreaterThan(0);
    for (const { table, row: cells } of dump) {
      for (const [column, value] of Object.entries(cells)) {
        for (const needle of forbidden) {
          expect(value?.includes(needle) ?? false, `${table}.${column} holds part of the key`).toBe(false);
        }
      }
    }
    // What is stored is a one-way digest of the secret (SHA-256), not something reversible.
    const digest = createHash('sha256').update(secret).digest('hex');
    expect(Object.values(row!)).toContain(digest);
  });

  it('gives an API-key principal 403 policy ["ApiKey"] on user-only endpoints (SEC-47)', async () => {
    const key = await ctx.apiKey('integration');
    const headers = { 'x-api-key': key };
    const created = await ctx.app.inject({ method: 'POST', url: '/documents', headers, payload: { title: 'a', body: 'b' } });
    expect(created.statusCode).toBe(403);
    expect(created.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(created)).toMatchObject({ title: 'Forbidden', status: 403, policy: ['ApiKey'] });
    expect(created.headers['www-authenticate']).toBeUndefined();
    // Nothing was created in anyone's name.
    expect(await ctx.data.documents.find(1)).toBeNull();

    // Every other user-only or role-guarded endpoint: 403 too, never 200.
    const { user } = await ctx.createUser();
    const document = await ctx.data.documents.create({ ownerId: user.id, title: 't', body: 'b', createdAt: Date.now() });
    for (const request of [
      { method: 'GET' as const, url: `/documents/${document.id}` },
      { method: 'PUT' as const, url: `/documents/${document.id}`, payload: { title: 'x', body: 'y' } },
      { method: 'DELETE' as const, url: `/documents/${document.id}` },
      { method: 'POST' as const, url: '/orgs', payload: { name: 'Evil' } },
      { method: 'GET' as const, url: '/content/premium' },
    ]) {
      const response = await ctx.app.inject({ ...request, headers });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(403);
      expect(json(response).policy, `${request.method} ${request.url}`).toEqual(['ApiKey']);
    }
    expect(await ctx.data.documents.find(document.id)).toMatchObject({ title: 't', body: 'b' });
  });

  it('does not let a valid bearer token stand in for an API key on the ApiKey-only endpoint', async () => {
    const { user } = await ctx.createUser();
    const response = await whoami(bearer(await ctx.tokenFor(user)));
    expectRefused(response, 'Missing API key');
  });
});
