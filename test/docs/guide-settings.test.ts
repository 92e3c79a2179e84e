/**
 * The guide's table of settings is the plugin's settings, each beside the environment variable it
 * stands for: a setting added to `GatehouseSettings` and not to the guide (or the other way round)
 * fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, variableOf } from '../../src/config/settings.ts';
import { projectRoot } from '../helpers/processes.ts';

const guide = readFileSync(join(projectRoot, 'docs/guide.md'), 'utf8');
const section = guide.slice(guide.indexOf('## Settings'), guide.indexOf('## ', guide.indexOf('## Settings') + 3));
const rows = new Map(
  [...section.matchAll(/^\| `([a-zA-Z][a-zA-Z0-9]*)` \| (.+?) \|$/gm)].map((match) => [match[1]!, match[2]!] as const),
);

describe('the guide’s settings', () => {
  it('lists every setting and no other', () => {
    expect([...rows.keys()].sort()).toEqual([...SETTING_NAMES].sort());
  });

  it.each(SETTING_NAMES.filter((name) => name !== 'production' && name !== 'oidc'))('names the variable of %s', (name) => {
    expect(rows.get(name)).toBe(`\`${variableOf(name)}\``);
  });
});
