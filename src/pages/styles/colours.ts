/**
 * The little colour arithmetic the pages need: WCAG 2.2's contrast ratio between two `#rrggbb`
 * colours, a mix of two of them, and the custom properties of the built-in stylesheet's light and
 * dark schemes. Enough to check an application's accent colour at start and to derive its dark
 * counterpart, without a CSS engine.
 */

/** The one form the stylesheet's colours and `pages.accentColor` take. */
export const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

type Rgb = readonly [number, number, number];

function rgbOf(hex: string): Rgb {
  if (!HEX_COLOUR.test(hex)) throw new TypeError(`Not a #rrggbb colour: ${JSON.stringify(hex)}.`);
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

function hexOf([red, green, blue]: Rgb): string {
  return `#${[red, green, blue].map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** An sRGB channel (0 to 255) as linear light (0 to 1). */
function linear(channel: number): number {
  const share = channel / 255;
  return share <= 0.04045 ? share / 12.92 : ((share + 0.055) / 1.055) ** 2.4;
}

/** WCAG's relative luminance: the linear channels weighted as the eye sees them. */
export function relativeLuminance(hex: string): number {
  const [red, green, blue] = rgbOf(hex);
  return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
}

/** From 1 (the same) to 21 (black on white), whichever of the two is lighter. */
export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** `share` (0 to 1) of `toward` mixed into `colour`, channel by channel in sRGB, as CSS's `color-mix(in srgb, …)` does. */
export function mix(colour: string, toward: string, share: number): string {
  const [red, green, blue] = rgbOf(colour);
  const [toRed, toGreen, toBlue] = rgbOf(toward);
  return hexOf([red + (toRed - red) * share, green + (toGreen - green) * share, blue + (toBlue - blue) * share]);
}

/** The `--gh-*` custom properties of a scheme, by name. */
export type SchemeProperties = Readonly<Record<string, string>>;

/**
 * The custom properties of the stylesheet's first `:root` block (the light scheme) and of the
 * `:root` inside its first `prefers-color-scheme: dark` query, on top of the light ones (the dark
 * block sets only what differs).
 */
export function schemeProperties(css: string): { readonly light: SchemeProperties; readonly dark: SchemeProperties } {
  const source = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const light = /:root\s*\{([^}]*)\}/.exec(source)?.[1];
  const dark = /@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)\s*\{\s*:root\s*\{([^}]*)\}/.exec(source)?.[1];
  if (light === undefined || dark === undefined) throw new Error('The stylesheet has no :root block for the light scheme and one for the dark scheme.');
  const lightProperties = propertiesOf(light);
  return { light: lightProperties, dark: { ...lightProperties, ...propertiesOf(dark) } };
}

function propertiesOf(block: string): Record<string, string> {
  return Object.fromEntries([...block.matchAll(/(--gh-[a-z0-9-]+)\s*:\s*([^;]+);/g)].map(([, name, value]) => [name!, value!.trim()]));
}
