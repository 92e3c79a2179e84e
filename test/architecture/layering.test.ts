/**
 * The library's layers (docs/decisions/0077-graphql-beside-http.md), checked on the module graph
 * as TypeScript resolves it, type-only imports included, and through every module in between:
 * - the core (claims, policies, schemes, membership, tokens, revocation, the store, and what they
 *   stand on) knows nothing of HTTP: no module of `src/http/`, no Fastify package;
 * - `src/graphql/` stands beside `src/http/` on the core: it imports nothing from `src/http/`.
 * - `src/endpoints/` (Gatehouse's endpoints for any host, docs/decisions/0080-host-neutral-endpoints.md),
 *   `src/pages/` (the pages they render) and `src/hosting/` (Gatehouse built for any host,
 *   docs/decisions/0082-an-instance-for-every-host.md), and the other hosts (`src/express/`, `src/hono/`, `src/nestjs/`, `src/web/`) import
 *   nothing from `src/http/` and no Fastify package but the Ajv set-up Fastify validates with;
 * - `src/web/` (any Fetch API runtime, Next.js route handlers among them) imports no framework:
 *   not `next`, whose shapes it writes out, nor another host's.
 * Tests are left out: what ships is what the rule is about.
 */
import { describe, expect, it } from 'vitest';
import { describePath, ModuleGraph, type ModuleImport } from '../helpers/module-graph.ts';
import { projectRoot } from '../helpers/processes.ts';

const CORE = [
  'src/security',
  'src/identity',
  'src/tokens',
  'src/revocation',
  'src/membership',
  'src/store',
  'src/audit',
  'src/policies',
  'src/platform',
  'src/config',
  'src/services.ts',
  'src/schemes',
  'src/gatehouse.ts',
  'src/gatehouse-internals.ts',
];

const FASTIFY_PACKAGE = /^(fastify|fastify-plugin|@fastify\/.+)$/;

const isHttpModule = (imported: ModuleImport) => imported.file?.startsWith('src/http/') ?? false;
const isHttp = (imported: ModuleImport) => isHttpModule(imported) || FASTIFY_PACKAGE.test(imported.packageName ?? '');

const graph = new ModuleGraph(projectRoot);

describe('the module graph', () => {
  const FIXTURE = 'test/architecture/imports-of-every-kind.ts';

  it('resolves type-only imports, re-exports, values and dynamic imports, to files and packages', () => {
    expect(graph.importsOf(FIXTURE)).toEqual([
      { specifier: 'fastify', packageName: 'fastify' },
      { specifier: '../../src/http/problem.ts', file: 'src/http/problem.ts' },
      { specifier: '../../src/security/authorization/policy-names.ts', file: 'src/security/authorization/policy-names.ts' },
      { specifier: '../../src/security/problem-details.ts', file: 'src/security/problem-details.ts' },
    ]);
  });

  it('finds a forbidden import directly and through the modules in between, and passes over an excused one', () => {
    const toHttp = graph.forbiddenPaths([FIXTURE], isHttp).map(describePath);
    expect(toHttp).toEqual([`${FIXTURE} → fastify`, `${FIXTURE} → src/http/problem.ts`]);
    const beyondHttp = graph.forbiddenPaths([FIXTURE], (imported) => imported.packageName === 'fastify').map(describePath);
    expect(beyondHttp).toEqual([`${FIXTURE} → fastify`, `${FIXTURE} → src/http/problem.ts → fastify`]);
    const excused = graph.forbiddenPaths([FIXTURE], isHttpModule, (from, imported) => from === FIXTURE && imported.file === 'src/http/problem.ts');
    expect(excused).toEqual([]);
  });
});

describe('the core', () => {
  it.each(CORE)('%s knows nothing of HTTP: no module of src/http/, no Fastify package', (folder) => {
    const modules = graph.modulesOf(folder);
    expect(modules.length).toBeGreaterThan(0);
    expect(graph.forbiddenPaths(modules, isHttp).map(describePath)).toEqual([]);
  });
});

describe('src/graphql/', () => {
  it('imports nothing from src/http/, directly or through another module', () => {
    const modules = graph.modulesOf('src/graphql');
    expect(modules).toContain('src/graphql/index.ts');
    expect(graph.forbiddenPaths(modules, isHttpModule).map(describePath)).toEqual([]);
  });
});

describe('src/endpoints/, src/pages/, src/hosting/ and the other hosts', () => {
  // @fastify/ajv-compiler is Ajv with Fastify's defaults, no Fastify: bodies get the same 400s on every host.
  const isHostSpecific = (imported: ModuleImport) => isHttp(imported) && imported.packageName !== '@fastify/ajv-compiler';

  it.each([
    ['src/endpoints', 'src/endpoints/fetch-handler.ts'],
    ['src/pages', 'src/pages/rendering.ts'],
    ['src/hosting', 'src/hosting/gatehouse-instance.ts'],
    ['src/express', 'src/express/gatehouse-express.ts'],
    ['src/hono', 'src/hono/gatehouse-hono.ts'],
    ['src/nestjs', 'src/nestjs/gatehouse-module.ts'],
    ['src/web', 'src/web/gatehouse-web.ts'],
  ])('%s imports nothing from src/http/ nor Fastify, directly or through another module', (folder, known) => {
    const modules = graph.modulesOf(folder);
    expect(modules).toContain(known);
    expect(graph.forbiddenPaths(modules, isHostSpecific).map(describePath)).toEqual([]);
  });
});

describe('src/web/', () => {
  const FRAMEWORK = /^(next|hono|@hono\/.+|express|@nestjs\/.+)$/;
  const isFramework = (imported: ModuleImport) => FRAMEWORK.test(imported.packageName ?? '') || /^src\/(express|hono|nestjs)\//.test(imported.file ?? '');

  it('imports no framework (not next, whose route handler shape it writes out), directly or through another module', () => {
    const modules = graph.modulesOf('src/web');
    expect(modules).toContain('src/web/next-route.ts');
    expect(graph.forbiddenPaths(modules, isFramework).map(describePath)).toEqual([]);
  });
});
