/**
 * GraphiQL's files (docs/reference/graphql.md, development only), served by the service from the npm
 * packages `graphiql`, `react` and `react-dom` and from its own start-up script: each page link
 * answers 200 with its content type, its length, a year of caching (the URL names the version)
 * and `nosniff`, byte for byte the package's file. Only the allow-listed paths exist: traversal,
 * other files of the same packages (source maps, `package.json`), encoded slashes and the
 * service's own sources are 404. Production has neither the page nor its files.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const require = createRequire(import.meta.url);

/** A file of an installed package, as the test reads it from disk. */
function packageFile(name: string, file: string): Buffer {
  return readFileSync(join(dirname(require.resolve(`${name}/package.json`)), file));
}

function linksOf(page: string): string[] {
  return [...page.matchAll(/(?:src|href)="(\/graphiql\/assets\/[^"]+)"/g)].map((match) => match[1]!);
}

describe('GraphiQL assets over HTTP (SQLite)', () => {
  const ctx = useTestApp(sqlite!);

  async function links(): Promise<string[]> {
    const page = await ctx.app.inject({ url: '/graphiql' });
    expect(page.statusCode).toBe(200);
    return linksOf(page.body);
  }

  it('links React, ReactDOM, GraphiQL (script and style) and its own start-up files, all on this origin', async () => {
    const paths = await links();
    expect(paths).toHaveLength(6);
    expect(paths.map((path) => path.replace(/@[\d.]+\//, '@VERSION/').replace(/\.[0-9a-f]{12}\./, '.HASH.'))).toEqual([
      '/graphiql/assets/graphiql@VERSION/graphiql.min.css',
      '/graphiql/assets/graphiql-page.HASH.css',
      '/graphiql/assets/react@VERSION/react.production.min.js',
      '/graphiql/assets/react-dom@VERSION/react-dom.production.min.js',
      '/graphiql/assets/graphiql@VERSION/graphiql.min.js',
      '/graphiql/assets/graphiql-start.HASH.js',
    ]);
  });

  it('serves each linked file with its type, length, a year of caching and nosniff', async () => {
    for (const path of await links()) {
      const response = await ctx.app.inject({ url: path });
      expect(response.statusCode, path).toBe(200);
      expect(response.headers['content-type'], path).toBe(path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(Number(response.headers['content-length']), path).toBe(response.rawPayload.length);
      expect(response.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });

  it('serves the packages’ files byte for byte, and the versions installed', async () => {
    const paths = await links();
    const graphiqlVersion = (require('graphiql/package.json') as { version: string }).version;
    const reactVersion = (require('react/package.json') as { version: string }).version;
    expect(paths).toContain(`/graphiql/assets/graphiql@${graphiqlVersion}/graphiql.min.js`);
    expect(paths).toContain(`/graphiql/assets/react@${reactVersion}/react.production.min.js`);
    const script = await ctx.app.inject({ url: `/graphiql/assets/graphiql@${graphiqlVersion}/graphiql.min.js` });
    expect(script.rawPayload.equals(packageFile('graphiql', 'graphiql.min.js'))).toBe(true);
    const react = await ctx.app.inject({ url: `/graphiql/assets/react@${reactVersion}/react.production.min.js` });
    expect(react.rawPayload.equals(packageFile('react', 'umd/react.production.min.js'))).toBe(true);
  });

  it('answers HEAD for a file without its body', async () => {
    const [path] = await links();
    const response = await ctx.app.inject({ method: 'HEAD', url: path! });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it.each([
    '/graphiql/assets/',
    '/graphiql/assets/graphiql.min.js',
    '/graphiql/assets/graphiql-start.js',
    '/graphiql/assets/graphiql@0.0.0/graphiql.min.js',
    '/graphiql/assets/../../package.json',
    '/graphiql/assets/..%2f..%2fpackage.json',
    '/graphiql/assets/%2e%2e/%2e%2e/package.json',
    '/graphiql/assets/graphiql%2fgraphiql.min.js',
    '/graphiql/assets/react@18.3.1/../../../src/main.ts',
    '/graphiql/assets//etc/passwd',
    '/graphiql/assets/graphiql-assets.ts',
    '/graphiql/assets/graphiql-page.ts',
  ])('answers 404 problem+json for %s, outside the allow-list', async (url) => {
    const response = await ctx.app.inject({ url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('answers 404 for the source maps and manifests beside the served files', async () => {
    const graphiqlVersion = (require('graphiql/package.json') as { version: string }).version;
    for (const file of ['graphiql.min.js.map', 'graphiql.min.css.map', 'package.json', 'graphiql.js']) {
      expect((await ctx.app.inject({ url: `/graphiql/assets/graphiql@${graphiqlVersion}/${file}` })).statusCode, file).toBe(404);
    }
  });
});

describe('GraphiQL assets in production (SQLite)', () => {
  const ctx = useTestApp(sqlite!, {
    env: { NODE_ENV: 'production', PUBLIC_URL: 'https://gatehouse.example', KEYRING_SECRET: 'a production secret of enough length for the ring', SMTP_URL: 'smtp://127.0.0.1:2525' },
  });

  it('serves neither the page nor its files', async () => {
    const graphiqlVersion = (require('graphiql/package.json') as { version: string }).version;
    expect((await ctx.app.inject({ url: '/graphiql' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ url: `/graphiql/assets/graphiql@${graphiqlVersion}/graphiql.min.js` })).statusCode).toBe(404);
  });
});
