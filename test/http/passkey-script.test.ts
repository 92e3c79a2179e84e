/**
 * The passkey script of the pages (docs/pages.md, decision 0061): linked from the login and
 * profile pages when passkeys are on, served anonymously at the one URL that names its content,
 * as JavaScript with nosniff, holding @simplewebauthn/browser's build and the service's own code;
 * any other file name under its folder is 404. With an IP address in PUBLIC_URL,
 * which browsers refuse as an RP ID, no page links it and the URL does not exist.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const ownCode = readFileSync(fileURLToPath(new URL('../../src/pages/passkeys/passkeys.js', import.meta.url)));

const scriptOf = (page: string) => /<script src="([^"]+)" integrity="([^"]+)" defer><\/script>/.exec(page);

describe('the passkey script over HTTP (SQLite)', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: 'http://localhost:3000' } });

  it('is linked from the login page and served anonymously, whole, as JavaScript that its integrity attribute pins', async () => {
    const login = await ctx.app.inject({ url: '/account/login', headers: { accept: 'text/html' } });
    const [, src, integrity] = scriptOf(login.body)!;
    expect(src).toMatch(/^\/account\/assets\/passkeys\.[0-9a-f]{12}\.js$/);

    const script = await ctx.app.inject({ url: src! });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.body).toContain('[@simplewebauthn/browser@14.');
    expect(script.body.endsWith(ownCode.toString())).toBe(true);
    expect(integrity).toBe(`sha384-${createHash('sha384').update(script.rawPayload).digest('base64')}`);
    // Its URL names its content: kept for a year, even with the page's cookie along.
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await ctx.app.inject({ url: src!, headers: { cookie: 'gh.auth=anything' } })).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers 404 for any other file under its folder', async () => {
    for (const path of ['/account/assets/passkeys.000000000000.js', '/account/assets/passkeys.js', '/account/assets/../pages/passkeys/passkeys.js']) {
      expect((await ctx.app.inject({ url: path })).statusCode, path).toBe(404);
    }
  });
});

describe('passkeys for clients that are not browsers only: an IP address in PUBLIC_URL (SQLite)', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: 'http://127.0.0.1:3000' } });

  it('links no script from the login page, whose policy allows none', async () => {
    const login = await ctx.app.inject({ url: '/account/login', headers: { accept: 'text/html' } });
    expect(login.body).not.toContain('<script');
    expect(login.body).not.toContain('passkey');
    expect(login.headers['content-security-policy']).not.toContain('script-src');
  });
});
