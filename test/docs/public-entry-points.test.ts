/**
 * The reference service and each example are applications of the library: they import Gatehouse
 * only through the package's entry points (`gatehouse-auth`, `gatehouse-auth/fastify`, …), exactly
 * as an application outside this repository would, never a file of the library itself. An example
 * may import another example's domain code.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/processes.ts';

const ENTRY_POINTS = new Set(Object.keys((JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => (subpath === '.' ? 'gatehouse-auth' : `gatehouse-auth/${subpath.slice(2)}`)));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier of a file: static imports and exports, and dynamic `import()`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) {
    found.push((match[1] ?? match[2] ?? match[3])!);
  }
  return found;
}

/** The reference service, and each folder of `examples/`: an application each. */
function applications(): string[] {
  const examples = join(projectRoot, 'examples');
  const exampleFolders = existsSync(examples)
    ? readdirSync(examples, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => join('examples', entry.name))
    : [];
  return ['server', ...exampleFolders];
}

describe.each(applications())('the application in %s', (application) => {
  const folder = join(projectRoot, application);
  const files = sourceFiles(folder).filter((file) => !file.endsWith('.test.ts'));

  // An example may share the domain code of another (the Express invoices, the Fastify one's): never the library's.
  const ownCode = application.startsWith('examples') ? join(projectRoot, 'examples') : folder;

  it('has source files to check', () => {
    expect(files.length).toBeGreaterThan(1);
  });

  it.each(files.map((file) => relative(projectRoot, file)))('%s reaches the library only through its entry points', (file) => {
    const outside = specifiers(readFileSync(join(projectRoot, file), 'utf8')).filter((specifier) => {
      if (specifier.startsWith('.')) return !join(projectRoot, file, '..', specifier).startsWith(ownCode);
      return specifier.startsWith('gatehouse-auth') && !ENTRY_POINTS.has(specifier);
    });
    expect(outside).toEqual([]);
  });
});

describe('the specifier reader', () => {
  it('finds static, re-exported, side-effect and dynamic imports', () => {
    const source = "import a from '../src/a.ts';\nexport { b } from 'gatehouse-auth/internal';\nimport './c.ts';\nconst d = await import('../src/d.ts');";
    expect(specifiers(source)).toEqual(['../src/a.ts', 'gatehouse-auth/internal', './c.ts', '../src/d.ts']);
  });
});
