/**
 * The package as a team gets it: `npm pack`, the tarball installed into a fresh folder with npm,
 * every entry point imported from plain JavaScript (ESM and `require`) and compiled from
 * TypeScript (`moduleResolution` node16 and bundler, `skipLibCheck` off), internals refused, the
 * `gatehouse` command run from the install, an optional driver named when it is missing.
 *
 * It packs the dist/ that `npm test` builds first (`npm pack --ignore-scripts`: rebuilding here
 * would pull dist/ from under the test files that run the service meanwhile). The install comes
 * from npm's cache when it is warm (`npm ci` fills it), from the registry otherwise.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/processes.ts';

const INSTALL_TIMEOUT_MS = 300_000;
const STEP_TIMEOUT_MS = 180_000;

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly exports: Record<string, string | Record<string, string>>;
  readonly bin: Record<string, string>;
  readonly peerDependencies: Record<string, string>;
  readonly peerDependenciesMeta: Record<string, { optional?: boolean }>;
  readonly devDependencies: Record<string, string>;
  readonly allowScripts: Record<string, boolean>;
}

const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as Manifest;
/** `gatehouse-auth`, `gatehouse-auth/fastify`, …: every subpath of the exports map but the manifest. */
const entryPoints = Object.keys(manifest.exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => manifest.name + subpath.slice(1));
/** Paths a user must not reach: the build's internals, the sources, the reference service, the CLI's file. */
const DEEP_IMPORTS = ['dist/src/services.js', 'dist/src/gatehouse-internals.js', 'dist/src/http/app.js', 'src/index.ts', 'dist/server/main.js', 'bin/gatehouse.js'].map(
  (path) => `${manifest.name}/${path}`,
);

const run = promisify(execFile);
const workspace = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
const consumer = join(workspace, 'app');
let packedFiles: string[] = [];

/** A child's environment without the npm variables of the `npm test` around this run (they name this project). */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_|^INIT_CWD$/i.test(name)));
}

async function inConsumer(command: string, args: readonly string[], timeout = STEP_TIMEOUT_MS): Promise<string> {
  try {
    const { stdout } = await run(command, [...args], { cwd: consumer, env: cleanEnvironment(), timeout, maxBuffer: 32 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in the installed app:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

/** Runs an ES module in the installed app and answers what it printed, parsed as JSON. */
async function runModule(file: string, source: string): Promise<unknown> {
  writeFileSync(join(consumer, file), source);
  return JSON.parse(await inConsumer(process.execPath, [file]));
}

beforeAll(async () => {
  if (!existsSync(join(projectRoot, 'dist/src/index.js'))) throw new Error('dist/ is not built: run `npm run build` (npm test does) first.');
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', workspace], {
    cwd: projectRoot,
    env: cleanEnvironment(),
    maxBuffer: 32 * 1024 * 1024,
  });
  const [tarball] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  packedFiles = tarball.files.map((file) => file.path);

  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'adopting-app', private: true, type: 'module' }));
  // pg, one optional driver, is installed as an application on PostgreSQL would; better-sqlite3 is
  // not. Express and its types, Hono with its Node server, and NestJS's core, are, as an
  // application on them has them (their entry points are compiled below).
  await inConsumer(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(workspace, tarball.filename),
      `@types/node@${manifest.devDependencies['@types/node']}`,
      `pg@${manifest.peerDependencies.pg}`,
      `express@${manifest.peerDependencies.express}`,
      `@types/express@${manifest.devDependencies['@types/express']}`,
      `hono@${manifest.peerDependencies.hono}`,
      `@hono/node-server@${manifest.peerDependencies['@hono/node-server']}`,
      `@nestjs/common@${manifest.devDependencies['@nestjs/common']}`,
      `@nestjs/core@${manifest.devDependencies['@nestjs/core']}`,
      `reflect-metadata@${manifest.devDependencies['reflect-metadata']}`,
      `rxjs@${manifest.devDependencies.rxjs}`,
    ],
    INSTALL_TIMEOUT_MS,
  );
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe('the packed tarball', () => {
  it('holds the build of the library, the command and the documents, and nothing else', () => {
    const unexpected = packedFiles.filter(
      (path) => !/^(package\.json|README\.md|CHANGELOG\.md|LICENSE|bin\/gatehouse\.js|dist\/src\/.+|docs\/[a-z-]+\.md|docs\/reference\/[A-Za-z-]+\.md)$/.test(path),
    );
    expect(unexpected).toEqual([]);
    // The guide and the reference the README links to; not the project's own decisions.
    expect(packedFiles).toEqual(expect.arrayContaining(['docs/guide.md', 'docs/aspnet-concepts.md', 'docs/reference/http.md']));
    expect(packedFiles.filter((path) => /\.test\.|(^|\/)(test|bench|server|scripts)\//.test(path))).toEqual([]);
  });

  it('holds every file the exports map and the command point at', () => {
    const targets = Object.values(manifest.exports).flatMap((target) =>
      typeof target === 'string' ? [target] : Object.entries(target).filter(([condition]) => condition !== 'gatehouse-source').map(([, path]) => path),
    );
    const missing = [...targets, ...Object.values(manifest.bin)].map((path) => path.replace(/^\.\//, '')).filter((path) => !packedFiles.includes(path));
    expect(missing).toEqual([]);
  });

  it('holds, beside the compiled modules, every other file of the library (workers, lists, schema, page assets)', () => {
    const assets = filesUnder(join(projectRoot, 'src')).filter((path) => !/\.ts$/.test(path) && !/\.test\./.test(path));
    expect(assets.length).toBeGreaterThan(0);
    expect(assets.map((path) => `dist/${path}`).filter((path) => !packedFiles.includes(path))).toEqual([]);
  });
});

describe('the package installed into a fresh application', { timeout: STEP_TIMEOUT_MS }, () => {
  it('imports every entry point from plain JavaScript, with the exports of the sources', async () => {
    const fromSources = Object.fromEntries(
      await Promise.all(Object.entries(manifest.exports).filter(([subpath]) => subpath !== './package.json').map(async ([subpath, target]) => {
        const source = (target as Record<string, string>)['gatehouse-source']!;
        return [manifest.name + subpath.slice(1), Object.keys(await import(join(projectRoot, source))).sort()] as const;
      })),
    );
    const imported = await runModule(
      'entries.mjs',
      `const names = {};
for (const entry of ${JSON.stringify(entryPoints)}) names[entry] = Object.keys(await import(entry)).sort();
console.log(JSON.stringify(names));`,
    );
    expect(imported).toEqual(fromSources);
  });

  it('loads every entry point with require() too (Node 20.19 loads ES modules from CommonJS)', async () => {
    writeFileSync(join(consumer, 'entries.cjs'), `console.log(JSON.stringify(${JSON.stringify(entryPoints)}.map((entry) => Object.keys(require(entry)).length)));`);
    const counts = JSON.parse(await inConsumer(process.execPath, ['entries.cjs'])) as number[];
    expect(counts).toHaveLength(entryPoints.length);
  });

  it('refuses deep imports into the package, by import and by require', async () => {
    const codes = await runModule(
      'deep.mjs',
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const codes = {};
for (const path of ${JSON.stringify(DEEP_IMPORTS)}) {
  codes[path] = [];
  try { await import(path); codes[path].push('loaded'); } catch (error) { codes[path].push(error.code); }
  try { require(path); codes[path].push('loaded'); } catch (error) { codes[path].push(error.code); }
}
console.log(JSON.stringify(codes));`,
    );
    expect(codes).toEqual(Object.fromEntries(DEEP_IMPORTS.map((path) => [path, ['ERR_PACKAGE_PATH_NOT_EXPORTED', 'ERR_PACKAGE_PATH_NOT_EXPORTED']])));
  });

  it('runs the gatehouse command from the install, on plain Node', async () => {
    expect((await inConsumer('npx', ['--no-install', 'gatehouse', '--version'])).trim()).toBe(manifest.version);
  });

  it('names an optional driver the application did not install, with the command that installs it; loads one it did', async () => {
    const outcomes = await runModule(
      'drivers.mjs',
      `import { createStore } from '${manifest.name}/store';
const outcomes = {};
for (const url of ['sqlite::memory:', 'postgres://gatehouse@127.0.0.1:1/none']) {
  try { const store = await createStore(url); await store.close(); outcomes[url] = 'created'; }
  catch (error) { outcomes[url] = error.name + ': ' + error.message; }
}
console.log(JSON.stringify(outcomes));`,
    );
    expect(outcomes).toEqual({
      'sqlite::memory:': `MissingPeerError: A sqlite: database URL needs the package better-sqlite3, which is not installed: npm install better-sqlite3@"${manifest.peerDependencies['better-sqlite3']}"`,
      'postgres://gatehouse@127.0.0.1:1/none': 'created',
    });
  });

  it('compiles from TypeScript against the installed declarations, with node16 and bundler resolution and skipLibCheck off', async () => {
    writeFileSync(join(consumer, 'app.ts'), typescriptApp());
    const tsc = join(projectRoot, 'node_modules/typescript/bin/tsc');
    const settings = { target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] };
    const resolutions = { node16: { module: 'node16', moduleResolution: 'node16' }, bundler: { module: 'esnext', moduleResolution: 'bundler' } };
    await Promise.all(
      Object.entries(resolutions).map(async ([name, resolution]) => {
        writeFileSync(join(consumer, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: { ...settings, ...resolution }, files: ['app.ts'] }));
        await inConsumer(process.execPath, [tsc, '-p', `tsconfig.${name}.json`]);
      }),
    );
  });
});

describe('installing the repository', () => {
  it('approves the install script of every dependency that has one (allowScripts), so npm ci builds the native modules', () => {
    const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.filter((name) => manifest.allowScripts[name] !== true)).toEqual([]);
    expect(existsSync(join(projectRoot, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  });

  it('declares every optional peer as a development dependency too, so the repository runs with all of them', () => {
    const optional = Object.keys(manifest.peerDependenciesMeta).filter((name) => manifest.peerDependenciesMeta[name]!.optional);
    expect(optional.filter((name) => manifest.devDependencies[name] !== manifest.peerDependencies[name])).toEqual([]);
  });
});

/**
 * An application's TypeScript: every entry point, a few names of the core, an internal path that
 * must not resolve, and policy names declared by module augmentation.
 */
function typescriptApp(): string {
  return `import * as core from '${manifest.name}';
import { AuthorizationPolicyBuilder, ClaimsPrincipal, type AuthorizationRequirement } from '${manifest.name}';
import type { PolicyName as FastifyPolicyName } from '${manifest.name}/fastify';
${entryPoints.slice(1).map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}
// @ts-expect-error: the build's internals are not exported
import * as internals from '${manifest.name}/dist/src/services.js';

export const entries = [core, ${entryPoints.slice(1).map((_, index) => `entry${index}`).join(', ')}, internals];
export const principal: typeof ClaimsPrincipal = core.ClaimsPrincipal;
export const builder: typeof AuthorizationPolicyBuilder = core.AuthorizationPolicyBuilder;
export type Requirement = AuthorizationRequirement;

// Policy names declared on the core entry point name the policies of the Fastify one too.
declare module '${manifest.name}' {
  interface GatehousePolicies { Invoices: true }
}
export const declared: FastifyPolicyName = 'Invoices';
// @ts-expect-error: a name the application did not declare
export const misspelt: FastifyPolicyName = 'Invoises';
`;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(projectRoot, join(entry.parentPath, entry.name)));
}
