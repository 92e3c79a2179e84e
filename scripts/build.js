// @ts-check
// `npm run build` (and `prepare`, so `npm ci` builds): a clean dist/, then tsc (JavaScript and
// declarations of src/ and server/, tsconfig.build.json), then every other file of those folders
// copied beside its compiled neighbours. Modules find such files next to themselves through
// `import.meta.url` (worker scripts, the common-password list, the GraphQL schema, GraphiQL's
// own files), so dist/ must hold them at the same relative places. Copying every non-TypeScript
// file, not a list, keeps a file added later from being forgotten. Plain JavaScript: it runs
// before anything is compiled, with nothing but Node.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, 'dist');
const SOURCE_FOLDERS = ['src', 'server'];

/** Tests stay out of the build, whatever their extension. */
const isTest = (/** @type {string} */ name) => /\.test\.[cm]?[jt]sx?$/.test(name);
const isTypeScript = (/** @type {string} */ name) => /\.[cm]?tsx?$/.test(name);

rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n');
  process.exit(compiled.status ?? 1);
}

let copied = 0;
for (const folder of SOURCE_FOLDERS) {
  for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || isTypeScript(entry.name) || isTest(entry.name)) continue;
    const from = join(entry.parentPath, entry.name);
    cpSync(from, join(dist, relative(root, from)));
    copied++;
  }
}
process.stdout.write(`build: dist/ compiled, ${copied} other files copied\n`);
