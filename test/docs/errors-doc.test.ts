/** docs/errors.md and the error table in src/security/errors.ts say the same thing. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/security/errors.ts';

const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map(
  [...page.matchAll(/^\| <a id="(gh_[a-z_]+)">(GH_[A-Z_]+)<\/a> \| (\d{3}) \|/gm)].map((match) => [match[2]!, { anchor: match[1]!, status: Number(match[3]) }]),
);

describe('docs/errors.md', () => {
  it('documents every error code with its status and anchor', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(documented.get(code), code).toEqual({ anchor: code.toLowerCase(), status });
    }
  });

  it('documents no code that no longer exists', () => {
    expect([...documented.keys()].filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });
});
