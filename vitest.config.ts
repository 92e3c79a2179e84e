import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // One graphql-js for all: Node loads its CommonJS entry for dependencies (graphql-ws), so the
    // project's own imports must get the same one, not the ESM entry Vite would prefer (graphql-js
    // refuses schemas and types from another copy of itself).
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One process per file: native modules (better-sqlite3) and per-process state stay apart.
    pool: 'forks',
  },
});
