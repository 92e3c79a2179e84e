/** docs/reference/configuration.md and the code that reads the environment name the same variables. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Every reader of settings in src/config/ (config.ts and the files a setting of its own needs). */
const configSources = () =>
  readdirSync(new URL('../../src/config/', import.meta.url))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => read(`src/config/${file}`))
    .join('\n');

/**
 * Every variable src/config/ and the service's own server/settings.ts read
 * (`OIDC_<NAME>_…` for the per-provider ones), and LOG_LEVEL, read by the logger.
 */
function variablesRead(): Set<string> {
  const config = configSources() + read('server/settings.ts').replace(/valueOf\(env, /g, 'readString(env, ');
  const names = [
    ...[...config.matchAll(/\bread\w+\(env, '([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]!),
    ...[...config.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]!),
    ...[...config.matchAll(/\bread\w+\(env, `\$\{prefix\}([A-Z][A-Z0-9_]*)`/g)].map((match) => `OIDC_<NAME>_${match[1]!}`),
    ...[...read('src/platform/logger.ts').matchAll(/\bprocess\.env\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]!),
  ];
  return new Set(names);
}

/** The variables in the first column of the table under "## Variables". */
function variablesDocumented(): Set<string> {
  const page = read('docs/reference/configuration.md');
  const section = page.slice(page.indexOf('## Variables'), page.indexOf('\n## ', page.indexOf('## Variables') + 1));
  const firstCells = [...section.matchAll(/^\| ([^|]+) \|/gm)].map((match) => match[1]!);
  return new Set(firstCells.flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_<>]*)`/g)].map((match) => match[1]!)));
}

describe('docs/reference/configuration.md', () => {
  const read = variablesRead();
  const documented = variablesDocumented();

  it('finds the variables in the code (the patterns still match how it reads them)', () => {
    expect(read.size).toBeGreaterThan(30);
    expect([...read]).toEqual(expect.arrayContaining(['DATABASE_URL', 'NODE_ENV', 'TZ', 'OIDC_<NAME>_ISSUER', 'LOG_LEVEL']));
  });

  it('documents every variable the service reads', () => {
    expect([...read].filter((name) => !documented.has(name))).toEqual([]);
  });

  it('documents no variable the service does not read', () => {
    expect([...documented].filter((name) => !read.has(name))).toEqual([]);
  });
});
