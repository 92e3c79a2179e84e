import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contrastRatio, HEX_COLOUR, mix, type SchemeProperties, schemeProperties } from './colours.ts';

/**
 * The pages' built-in look as one file that the service serves itself (decision 0094): the
 * stylesheet beside this module, with the application's accent colour appended as a few rules of
 * custom properties when it has one. Built once at start; its name carries a hash of its content,
 * so a new look is a new URL, and the `<link>` element carries its Subresource Integrity. No
 * inline style anywhere, so the pages' policy allows styles from files only.
 */
export interface PageStylesheet {
  /** The file's name under the assets path: it names its content. */
  readonly fileName: string;
  readonly content: Buffer;
  /** Subresource Integrity of `content`, for the `integrity` attribute of the `<link>` element. */
  readonly integrity: string;
}

/** Where the stylesheet is served, under the membership's prefix (beside the passkey script). */
export const PAGE_ASSETS_FOLDER = '/account/assets/';

/** WCAG 2.2 AA (1.4.3) for text of ordinary size: the buttons' labels and the links are such text. */
export const TEXT_CONTRAST = 4.5;

const here = dirname(fileURLToPath(import.meta.url));
let builtIn: string | undefined;

/** gatehouse.css, read once. It sits beside this module in the sources, and in dist/ too: the build copies every file that is not TypeScript. */
export function builtInCss(): string {
  return (builtIn ??= readFileSync(join(here, 'gatehouse.css'), 'utf8'));
}

/** The stylesheet for one configuration: the built-in one, and the accent's rules when `accentColor` (checked) is set. */
export function pageStylesheet(accentColor: string | null = null): PageStylesheet {
  const css = accentColor === null ? builtInCss() : `${builtInCss()}\n${accentRules(accentColor)}`;
  const content = Buffer.from(css, 'utf8');
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  return {
    fileName: `gatehouse.${hash}.css`,
    content,
    integrity: `sha384-${createHash('sha384').update(content).digest('base64')}`,
  };
}

/**
 * `pages.accentColor` as the stylesheet uses it, lower case. Refused unless it is `#rrggbb` and
 * dark enough for the light scheme: buttons write white text on it and links are written in it on
 * white and on the hover grey, and each needs 4.5:1. A too light accent stops the start rather
 * than ship pages that fail AA; the dark scheme's counterpart is derived (`darkAccent`).
 */
export function checkedAccentColor(value: unknown): string {
  if (typeof value !== 'string' || !HEX_COLOUR.test(value)) {
    throw new TypeError(`pages.accentColor must be a colour written #rrggbb, such as #1f5fd1, not ${JSON.stringify(value)}.`);
  }
  const accent = value.toLowerCase();
  const { light } = schemeProperties(builtInCss());
  const ratio = weakestContrast(accent, light);
  if (ratio < TEXT_CONTRAST) {
    throw new TypeError(
      `pages.accentColor ${accent} is too light: the pages write white text on it and links in it, which WCAG 2.2 AA wants at ${TEXT_CONTRAST}:1 at least, ` +
        `and it reaches ${ratio.toFixed(2)}:1. Choose a darker shade.`,
    );
  }
  return accent;
}

/** The lowest contrast of `accent` with what it meets in a scheme: the text on it, the card, the hover grey. */
export function weakestContrast(accent: string, scheme: SchemeProperties): number {
  return Math.min(...['--gh-on-accent', '--gh-surface', '--gh-raised'].map((name) => contrastRatio(accent, scheme[name]!)));
}

/**
 * The accent for the dark scheme: the same hue mixed with white, in steps of 5 %, until it reads
 * on the dark card and the dark text reads on it. A light accent passes at once; an accent dark
 * enough for the light scheme never does, so some white is always mixed in.
 */
export function darkAccent(accent: string): string {
  const { dark } = schemeProperties(builtInCss());
  for (let step = 0; step <= 20; step++) {
    const candidate = mix(accent, '#ffffff', step / 20);
    if (weakestContrast(candidate, dark) >= TEXT_CONTRAST) return candidate;
  }
  // Unreachable with the stylesheet's dark colours (white passes); kept for a stylesheet that changes them.
  throw new Error(`No shade of ${accent} reads on the dark scheme's colours.`);
}

/** The rules that put the accent in force: appended after the stylesheet's own, so they win at the same specificity. */
function accentRules(accent: string): string {
  return `/* pages.accentColor, and its shade for the dark scheme. */
:root {
  --gh-accent: ${accent};
}

@media (prefers-color-scheme: dark) {
  :root {
    --gh-accent: ${darkAccent(accent)};
  }
}
`;
}
