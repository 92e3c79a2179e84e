/**
 * An organization's slug: its name in a URL (`acme-corp`), exactly `[a-z0-9-]{2,64}`, unique.
 * Given by the caller, it is taken as it is or refused; made from the name otherwise.
 */

const SLUG = /^[a-z0-9-]{2,64}$/;
const MAX_LENGTH = 64;
/** What a name with nothing usable in it (`日本`, `!!`) is called in a URL. */
const FALLBACK = 'organization';

export function isValidSlug(slug: string): boolean {
  return SLUG.test(slug);
}

/**
 * The slug made from `name`: accents dropped (`Café` is `cafe`), lower-cased, every other
 * character a `-`, runs of them one, none at the ends; `-org` after a single character, and
 * `organization` for a name with nothing usable.
 */
export function slugFromName(name: string): string {
  const plain = name
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, MAX_LENGTH)
    .replace(/-$/, '');
  return plain.length >= 2 ? plain : plain.length === 1 ? `${plain}-org` : FALLBACK;
}

/**
 * The `attempt`-th candidate for `base` when the ones before were taken: `base` itself first, then
 * `base-2`, `base-3`, …, cut so that the suffix still fits in 64 characters.
 */
export function slugCandidate(base: string, attempt: number): string {
  if (attempt <= 1) return base;
  const suffix = `-${attempt}`;
  return `${base.slice(0, MAX_LENGTH - suffix.length).replace(/-$/, '')}${suffix}`;
}
