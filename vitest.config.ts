import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Suites that run the service as processes (several, killed, cut off from PostgreSQL or Redis) or drive Chromium. */
const WHOLE_SYSTEM = ['test/process/**/*.test.ts', 'test/instances/**/*.test.ts', 'test/outages/**/*.test.ts', 'test/pages/**/*.test.ts'];

/**
 * The black-box suites of the reference service run again on its Express, Hono and NestJS hosts
 * (`TEST_FRAMEWORK`, read by test/helpers/test-app.ts): the same requests, the same expected
 * answers. There on SQLite only (`TEST_ENGINES`, test/helpers/databases.ts): the host is what they
 * test, and the Fastify runs test both engines. (test/endpoints compares the Web-standard handler
 * with the Fastify host, and stays on Fastify.)
 */
const ON_EVERY_HOST = ['test/http/**/*.test.ts', 'test/security/**/*.test.ts', 'test/graphql/**/*.test.ts'];

/**
 * Of those, the suites of what only the Fastify host has (its plugin's options: the result
 * handler, the OpenAPI document), and those that build a Fastify application of their own.
 */
const FASTIFY_ONLY = ['test/http/result-handler.test.ts', 'test/http/openapi.test.ts', 'test/http/mail-templates.test.ts', 'test/http/languages.test.ts'];

/** Tests that read the state of the whole process (its threads' nice values): a process of their own each. */
const OWN_PROCESS = ['src/identity/argon2-workers.test.ts'];

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
      { find: /^gatehouse-auth\/express$/, replacement: fileURLToPath(new URL('./src/express/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/nestjs$/, replacement: fileURLToPath(new URL('./src/nestjs/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/hono$/, replacement: fileURLToPath(new URL('./src/hono/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/web$/, replacement: fileURLToPath(new URL('./src/web/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/graphql$/, replacement: fileURLToPath(new URL('./src/graphql/index.ts', import.meta.url)) },
      { find: /^gatehouse-auth\/store$/, replacement: fileURLToPath(new URL('./src/store/index.ts', import.meta.url)) },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Processes, not threads: native modules (better-sqlite3) load once per process. Each project's
    // files share their processes (isolate: false): importing the service again in a fresh process
    // cost as much as a host suite's tests (docs/decisions/0091). A file that reads what the whole
    // process does runs in one of its own (OWN_PROCESS); the whole-system suites too.
    pool: 'forks',
    projects: [
      {
        extends: true,
        // The unit tests beside the code. None of the shared files mocks a module, stubs a global
        // or leaves fake timers behind (docs/decisions/0078).
        test: { name: 'units', include: ['src/**/*.test.ts', 'server/**/*.test.ts'], exclude: [...OWN_PROCESS], isolate: false, maxWorkers: 2 },
      },
      {
        extends: true,
        test: {
          name: 'files',
          include: ['test/**/*.test.ts'],
          exclude: [...WHOLE_SYSTEM],
          isolate: false,
          // Two files at a time whatever the core count (Vitest would run one on two cores): most
          // of a file's time is spent waiting on a database, a child process or a socket.
          maxWorkers: 2,
        },
      },
      { extends: true, test: { name: 'own-process', include: [...OWN_PROCESS], maxWorkers: 2 } },
      {
        extends: true,
        test: { name: 'express', include: ON_EVERY_HOST, exclude: [...FASTIFY_ONLY], isolate: false, env: { TEST_FRAMEWORK: 'express', TEST_ENGINES: 'sqlite' }, maxWorkers: 2 },
      },
      {
        extends: true,
        test: { name: 'hono', include: ON_EVERY_HOST, exclude: [...FASTIFY_ONLY], isolate: false, env: { TEST_FRAMEWORK: 'hono', TEST_ENGINES: 'sqlite' }, maxWorkers: 2 },
      },
      {
        extends: true,
        test: { name: 'nestjs', include: ON_EVERY_HOST, exclude: [...FASTIFY_ONLY], isolate: false, env: { TEST_FRAMEWORK: 'nestjs', TEST_ENGINES: 'sqlite' }, maxWorkers: 2 },
      },
      {
        extends: true,
        test: { name: 'nestjs-fastify', include: ON_EVERY_HOST, exclude: [...FASTIFY_ONLY], isolate: false, env: { TEST_FRAMEWORK: 'nestjs-fastify', TEST_ENGINES: 'sqlite' }, maxWorkers: 2 },
      },
      {
        extends: true,
        // After the others, one file at a time: each starts several services, or a browser, and
        // measures what they do within seconds; two of them side by side on two cores would
        // measure the machine.
        test: { name: 'whole-system', include: [...WHOLE_SYSTEM], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
