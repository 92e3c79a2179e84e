/**
 * The pages' built-in stylesheet over HTTP (docs/pages.md, decision 0094): linked from every page
 * with its integrity, served anonymously at the one URL that names its content, as CSS with
 * nosniff, the application's accent appended; any other file name under its folder is 404. The
 * pages' policy allows styles from this origin and nothing inline.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { builtInCss } from '../../src/pages/styles/page-stylesheet.ts';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const NAVIGATION = { accept: 'text/html' };

const linkOf = (page: string) => /<link rel="stylesheet" href="([^"]+)" integrity="([^"]+)">/.exec(page);

describe.runIf(sqlite)('the built-in stylesheet over HTTP (SQLite)', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: 'http://127.0.0.1:3000' } });

  it('is linked from the pages and served anonymously, whole, as CSS that its integrity attribute pins', async () => {
    const login = await ctx.app.inject({ url: '/account/login', headers: NAVIGATION });
    const [, href, integrity] = linkOf(login.body)!;
    expect(href).toMatch(/^\/account\/assets\/gatehouse\.[0-9a-f]{12}\.css$/);
    // A refusal page links the same file.
    expect(linkOf((await ctx.app.inject({ url: '/account/missing', headers: NAVIGATION })).body)?.[1]).toBe(href);

    const stylesheet = await ctx.app.inject({ url: href! });
    expect(stylesheet.statusCode).toBe(200);
    expect(stylesheet.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(stylesheet.headers['x-content-type-options']).toBe('nosniff');
    expect(stylesheet.body).toBe(builtInCss());
    expect(integrity).toBe(`sha384-${createHash('sha384').update(stylesheet.rawPayload).digest('base64')}`);
    // Its URL names its content: kept for a year, even when the browser sends its cookie along.
    expect(stylesheet.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const withCookie = await ctx.app.inject({ url: href!, headers: { cookie: 'gh.auth=anything' } });
    expect(withCookie.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // Every other answer under /account/ stays never stored.
    expect((await ctx.app.inject({ url: '/account/login', headers: NAVIGATION })).headers['cache-control']).toBe('no-store');
  });

  it('lets the pages load it, and no inline style', async () => {
    const login = await ctx.app.inject({ url: '/account/login', headers: NAVIGATION });
    const policy = login.headers['content-security-policy'] as string;
    expect(policy).toContain(" style-src 'self';");
    expect(policy).not.toContain('unsafe-inline');
    expect(login.body).not.toMatch(/<style|\sstyle=/);
  });

  it('answers 404 for any other file under its folder', async () => {
    for (const path of ['/account/assets/gatehouse.000000000000.css', '/account/assets/gatehouse.css', '/account/assets/../pages/styles/gatehouse.css']) {
      expect((await ctx.app.inject({ url: path })).statusCode, path).toBe(404);
    }
  });
});

describe.runIf(sqlite)('a logo and an accent colour of the application (SQLite)', () => {
  const ctx = useTestApp(sqlite!, {
    env: { PUBLIC_URL: 'http://127.0.0.1:3000' },
    appOptions: { pages: { productName: 'Acme ID', logo: 'https://static.acme.test/logo.svg', accentColor: '#0B6E4F' } },
  });

  it('shows the logo named by the product, allows its origin for images, and serves the accent in the stylesheet', async () => {
    const login = await ctx.app.inject({ url: '/account/login', headers: NAVIGATION });
    expect(login.body).toContain('<img class="gh-logo" src="https://static.acme.test/logo.svg" alt="Acme ID">');
    expect(login.headers['content-security-policy']).toContain(" img-src 'self' data: https://static.acme.test;");
    const [, href] = linkOf(login.body)!;
    const stylesheet = await ctx.app.inject({ url: href! });
    expect(stylesheet.statusCode).toBe(200);
    expect(stylesheet.body.startsWith(builtInCss())).toBe(true);
    expect(stylesheet.body).toContain('--gh-accent: #0b6e4f;');
    expect(login.body).not.toMatch(/<style|\sstyle=|#0b6e4f/i);
  });
});
