/**
 * The library's layers (docs/decisions/0077-graphql-beside-http.md), checked on the module graph
 * as TypeScript resolves it, type-only imports included, and through every module in between:
 * - the core (claims, policies, schemes, membership, tokens, revocation, the store, and what they
 *   stand on) knows nothing of HTTP: no module of `src/http/`, no Fastify package;
 * - `src/graphql/` stands beside `src/http/` on the core: it imports nothing from `src/http/`.
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
];

/**
 * Imports of `src/http/` that `src/graphql/` still makes, each until the module it names leaves
 * `src/http/`. When one is gone, its entry must go too: the last test fails until it does.
 */
const NOT_YET_MOVED: readonly { readonly from: string; readonly to: string; readonly until: string }[] = [
  {
    from: 'src/graphql/http-transport.ts',
    to: 'src/http/authentication-schemes.ts',
    until: 'the scheme registry built from the options (authenticationSchemes, SchemeOptions) moves to the request path beside the schemes',
  },
  {
    from: 'src/graphql/graphql-socket.ts',
    to: 'src/http/socket-credential.ts',
    until: 'SocketCredential moves to the request path beside the schemes',
  },
  {
    from: 'src/graphql/plugin.ts',
    to: 'src/http/app.ts',
    until: 'the Gatehouse type (what the plugin decorates the application with) moves out of the Fastify application module',
  },
];

const FASTIFY_PACKAGE = /^(fastify|fastify-plugin|@fastify\/.+)$/;

const isHttpModule = (imported: ModuleImport) => imported.file?.startsWith('src/http/') ?? false;
const isHttp = (imported: ModuleImport) => isHttpModule(imported) || FASTIFY_PACKAGE.test(imported.packageName ?? '');
const notYetMoved = (from: string, imported: ModuleImport) => NOT_YET_MOVED.some((entry) => entry.from === from && entry.to === imported.file);

const graph = new ModuleGraph(projectRoot);

describe('the module graph', () => {
  it('resolves the project’s files, packages and type-only imports (read from src/graphql/plugin.ts)', () => {
    const imports = graph.importsOf('src/graphql/plugin.ts');
    expect(imports).toContainEqual({ specifier: 'fastify', packageName: 'fastify' });
    expect(imports).toContainEqual({ specifier: './context.ts', file: 'src/graphql/context.ts' });
    expect(imports).toContainEqual({ specifier: '../security/authorization/policy-names.ts', file: 'src/security/authorization/policy-names.ts' });
  });

  it('finds a forbidden import through the modules in between', () => {
    const paths = graph.forbiddenPaths(['src/http/index.ts'], (imported) => imported.file === 'src/security/errors.ts');
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every(({ through }) => through[0] === 'src/http/index.ts')).toBe(true);
    expect(paths.some(({ through }) => through.length > 1)).toBe(true);
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
    expect(graph.forbiddenPaths(modules, isHttpModule, notYetMoved).map(describePath)).toEqual([]);
  });

  it.each(NOT_YET_MOVED)('still imports $to from $from (else the entry leaves NOT_YET_MOVED)', ({ from, to }) => {
    expect(graph.importsOf(from).map((imported) => imported.file)).toContain(to);
  });
});
