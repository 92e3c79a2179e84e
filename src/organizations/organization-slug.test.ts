import { describe, expect, it } from 'vitest';
import { isValidSlug, slugCandidate, slugFromName } from './organization-slug.ts';

describe('slugFromName', () => {
  it('lower-cases the name and turns every run of other characters into one hyphen, none at the ends', () => {
    expect(slugFromName('Acme Corp')).toBe('acme-corp');
    expect(slugFromName('  Acme -- Corp, Inc. ')).toBe('acme-corp-inc');
    expect(slugFromName('R&D / 2026')).toBe('r-d-2026');
  });

  it('drops accents rather than turning accented letters into hyphens', () => {
    expect(slugFromName('Café Über Ñandú')).toBe('cafe-uber-nandu');
  });

  it('always gives a valid slug, for a one-letter name, a name with nothing usable and a very long name', () => {
    for (const name of ['A', '日本', '!!!', '', 'x'.repeat(300), `${'ab '.repeat(40)}`, '-a-']) {
      const slug = slugFromName(name);
      expect(isValidSlug(slug), `${JSON.stringify(name)} gave ${slug}`).toBe(true);
      expect(slug.endsWith('-')).toBe(false);
    }
    expect(slugFromName('A')).toBe('a-org');
    expect(slugFromName('日本')).toBe('organization');
  });
});

describe('slugCandidate', () => {
  it('is the base first, then the base with -2, -3, …, still within 64 characters', () => {
    expect(slugCandidate('acme', 1)).toBe('acme');
    expect(slugCandidate('acme', 2)).toBe('acme-2');
    const long = slugFromName('y'.repeat(64));
    expect(slugCandidate(long, 12)).toBe(`${'y'.repeat(61)}-12`);
    expect(isValidSlug(slugCandidate(long, 12))).toBe(true);
  });
});

describe('isValidSlug', () => {
  it('takes exactly [a-z0-9-]{2,64}', () => {
    for (const slug of ['ab', 'acme-corp', '0-9', 'a'.repeat(64)]) expect(isValidSlug(slug)).toBe(true);
    for (const slug of ['a', 'Acme', 'acme corp', 'acme_corp', 'a'.repeat(65), 'café', 'acme\n']) expect(isValidSlug(slug)).toBe(false);
  });
});
