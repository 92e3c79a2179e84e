import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // One graphql-js for all: Node loads its CommonJS entry for dependencies (graphql-ws), so the
    // project's own imports must get the same one, not the ESM entry Vite would prefer (graphql-js
    // refuses schemas and types from another copy of itself).
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      // The reference service imports the library by its package name, as any application does;
      // tests run it from the sources (the exports map's `gatehouse-source` condition).
      { find: /^gatehouse-auth$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/fastify$/, replacement: fileURLToPath(new URL('./src/http/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/graphql$/, replacement: fileURLToPath(new URL('./src/graphql/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/store$/, replacement: fileURLToPath(new URL('./src/store/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'server/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One process per file: native modules (better-sqlite3) and per-process state stay apart.
    pool: 'forks',
  },
});
