import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One process per file: native modules (better-sqlite3) and per-process state stay apart.
    pool: 'forks',
  },
});
