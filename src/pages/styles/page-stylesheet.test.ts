/**
 * The built-in stylesheet's colours meet WCAG 2.2 AA in both schemes, read from the stylesheet
 * itself: a colour changed in gatehouse.css that fails a pair fails here, with the pair named. Then
 * the accent colour option (checked, applied without inline style, derived for the dark scheme),
 * the logo option, and the markup and policy the served stylesheet allows.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PageRendering } from '../rendering.ts';
import { contrastRatio, HEX_COLOUR, mix, type SchemeProperties, schemeProperties } from './colours.ts';
import { builtInCss, checkedAccentColor, darkAccent, pageStylesheet } from './page-stylesheet.ts';

/** 1.4.3: text of ordinary size. */
const TEXT = 4.5;
/** 1.4.11: the boundaries of controls and the focus indicator. */
const UI = 3;

/** [foreground, background, what it is, the ratio it needs]. */
const PAIRS: readonly (readonly [string, string, string, number])[] = [
  ['--gh-text', '--gh-bg', 'text on the page (the header)', TEXT],
  ['--gh-text', '--gh-surface', 'text in the card', TEXT],
  ['--gh-text', '--gh-raised', 'text on a hovered provider link', TEXT],
  ['--gh-text', '--gh-input-bg', 'text typed into a field', TEXT],
  ['--gh-text', '--gh-error-bg', 'text of an error summary', TEXT],
  ['--gh-text', '--gh-notice-bg', 'text of a notice', TEXT],
  ['--gh-text', '--gh-code-bg', 'a code or key', TEXT],
  ['--gh-muted', '--gh-surface', 'hints and labels of details', TEXT],
  ['--gh-muted', '--gh-bg', 'muted text on the page', TEXT],
  ['--gh-accent', '--gh-surface', 'a link, a secondary button', TEXT],
  ['--gh-accent', '--gh-raised', 'a hovered secondary button', TEXT],
  ['--gh-on-accent', '--gh-accent', 'a primary button', TEXT],
  ['--gh-on-accent', '--gh-accent-hover', 'a hovered primary button', TEXT],
  ['--gh-danger', '--gh-surface', 'a field error, a danger button', TEXT],
  ['--gh-danger', '--gh-error-bg', 'an error line in a summary box', TEXT],
  ['--gh-on-danger', '--gh-danger', 'a hovered danger button', TEXT],
  ['--gh-success', '--gh-notice-bg', 'the "Active" badge', TEXT],
  ['--gh-control-border', '--gh-surface', "a field's border on the card", UI],
  ['--gh-control-border', '--gh-input-bg', "a field's border against its inside", UI],
  ['--gh-accent', '--gh-bg', 'the focus ring on the page', UI],
  ['--gh-danger', '--gh-input-bg', "an invalid field's border", UI],
];

/** A property's colour: `#rrggbb`, or the one `color-mix(in srgb, var(--x) N%, #rrggbb)` form the stylesheet uses. */
function colourOf(scheme: SchemeProperties, name: string): string {
  const value = scheme[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  if (HEX_COLOUR.test(value)) return value;
  const mixed = /^color-mix\(in srgb, var\((--gh-[a-z-]+)\) (\d+)%, (#[0-9a-f]{6})\)$/i.exec(value);
  if (mixed === null) throw new Error(`${name}: ${value} is neither #rrggbb nor a color-mix of one`);
  return mix(colourOf(scheme, mixed[1]!), mixed[3]!, 1 - Number(mixed[2]) / 100);
}

/** Every pair below its ratio, as readable lines: an empty list passes. */
function failures(scheme: SchemeProperties): string[] {
  return PAIRS.flatMap(([foreground, background, what, needed]) => {
    const ratio = contrastRatio(colourOf(scheme, foreground), colourOf(scheme, background));
    return ratio >= needed ? [] : [`${what}: ${foreground} on ${background} is ${ratio.toFixed(2)}:1, needs ${needed}:1`];
  });
}

/** A scheme with the accent an application chose, as the appended rules set it. */
function withAccent(scheme: SchemeProperties, accent: string): SchemeProperties {
  return { ...scheme, '--gh-accent': accent };
}

describe('contrast ratios', () => {
  it('are those of WCAG 2.2', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#1f5fd1', '#1f5fd1')).toBe(1);
    expect(mix('#000000', '#ffffff', 0.5)).toBe('#808080');
  });
});

describe('the built-in stylesheet', () => {
  const css = builtInCss();
  const { light, dark } = schemeProperties(css);

  it('sets every colour of both schemes as #rrggbb', () => {
    const names = new Set(PAIRS.flatMap(([foreground, background]) => [foreground, background]));
    for (const scheme of [light, dark]) for (const name of names) expect(() => colourOf(scheme, name), name).not.toThrow();
    // The dark block sets its own colours, not the light ones again by accident.
    expect(dark['--gh-surface']).not.toBe(light['--gh-surface']);
    expect(dark['--gh-accent']).not.toBe(light['--gh-accent']);
  });

  it('meets WCAG 2.2 AA contrast in the light scheme', () => {
    expect(failures(light)).toEqual([]);
  });

  it('meets WCAG 2.2 AA contrast in the dark scheme', () => {
    expect(failures(dark)).toEqual([]);
  });

  it('is one file that loads nothing else, keeps hidden controls hidden, and shows focus', () => {
    expect(css).not.toMatch(/@import|url\(|expression\(/i);
    expect(css).toMatch(/\[hidden\]\s*\{\s*display:\s*none !important;/);
    expect(css).toMatch(/:focus-visible\s*\{\s*outline:\s*3px solid var\(--gh-accent\);/);
    expect(css).toContain('@media (prefers-color-scheme: dark)');
  });

  it('is named by its content and pinned by its integrity', () => {
    const stylesheet = pageStylesheet();
    expect(stylesheet.content.toString('utf8')).toBe(css);
    expect(stylesheet.fileName).toBe(`gatehouse.${createHash('sha256').update(css).digest('hex').slice(0, 12)}.css`);
    expect(stylesheet.integrity).toBe(`sha384-${createHash('sha384').update(css).digest('base64')}`);
  });
});

describe('the accent colour', () => {
  const { light, dark } = schemeProperties(builtInCss());

  it('accepts #rrggbb dark enough for white text, in lower case', () => {
    expect(checkedAccentColor('#0B6E4F')).toBe('#0b6e4f');
    for (const accent of ['#0b6e4f', '#6d28d9', '#b42318', '#000000', '#1f5fd1', '#8a4b08']) {
      expect(failures(withAccent(light, checkedAccentColor(accent))), accent).toEqual([]);
    }
  });

  it('refuses another notation, and an accent too light for white text, saying why', () => {
    for (const value of ['red', '#fff', '#12345g', 'rgb(0 0 0)', ' #1f5fd1', 42]) {
      expect(() => checkedAccentColor(value), String(value)).toThrow(/pages\.accentColor must be a colour written #rrggbb/);
    }
    for (const value of ['#79b0ff', '#ffcc00', '#ffffff', '#2f9e44']) {
      expect(() => checkedAccentColor(value), value).toThrow(/pages\.accentColor #[0-9a-f]{6} is too light: .* 4\.5:1 .* reaches \d\.\d\d:1/);
    }
    expect(() => new PageRendering({ accentColor: '#ffcc00' })).toThrow(/pages\.accentColor/);
  });

  it('gets a lighter shade of itself in the dark scheme that meets AA there', () => {
    for (const accent of ['#0b6e4f', '#6d28d9', '#b42318', '#000000', '#1f5fd1', '#8a4b08']) {
      const shade = darkAccent(accent);
      expect(shade, accent).not.toBe(accent);
      expect(failures(withAccent(dark, shade)), `${accent} → ${shade}`).toEqual([]);
    }
  });

  it('is appended to the served stylesheet, which then has a name of its own; nothing inline', () => {
    const accented = new PageRendering({ accentColor: '#0b6e4f' });
    const plain = new PageRendering();
    const css = accented.builtInStylesheet!.content.toString('utf8');
    expect(css.startsWith(builtInCss())).toBe(true);
    expect(css).toMatch(/:root \{\n {2}--gh-accent: #0b6e4f;\n\}/);
    expect(css).toContain(`--gh-accent: ${darkAccent('#0b6e4f')};`);
    expect(accented.builtInStylesheet!.fileName).not.toBe(plain.builtInStylesheet!.fileName);
    const markup = accented.render('login', { antiforgeryToken: 't' }).toString();
    expect(markup).toContain(`href="/account/assets/${accented.builtInStylesheet!.fileName}" integrity="${accented.builtInStylesheet!.integrity}"`);
    expect(markup).not.toMatch(/<style|\sstyle=|#0b6e4f/);
    expect(accented.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('is refused beside builtInStyles: false, where it would colour nothing', () => {
    expect(() => new PageRendering({ accentColor: '#0b6e4f', builtInStyles: false })).toThrow(/pages\.accentColor colours the built-in stylesheet/);
  });
});

describe('the pages with the served stylesheet', () => {
  const login = { antiforgeryToken: 't' } as const;

  it('allow styles from this origin only, and none at all without a stylesheet', () => {
    const policy = new PageRendering().headers['content-security-policy']!;
    expect(policy).toBe("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    const bare = new PageRendering({ builtInStyles: false });
    expect(bare.headers['content-security-policy']).not.toContain('style-src');
    expect(bare.builtInStylesheet).toBeNull();
    expect(bare.render('login', login).toString()).not.toContain('<link');
    // A stylesheet of the application's on this origin adds nothing to 'self'.
    expect(new PageRendering({ stylesheet: '/assets/site.css' }).headers['content-security-policy']).toContain(" style-src 'self'; img-src");
  });

  it('link the stylesheet under the assets path they are given (the prefix)', () => {
    const pages = new PageRendering({}, { assets: '/identity/account/assets/' });
    expect(pages.render('login', login).toString()).toContain(`<link rel="stylesheet" href="/identity/account/assets/${pages.builtInStylesheet!.fileName}"`);
  });

  it('put the sign-in flows in a narrow card and the settings in a wide one, under a header with the product name', () => {
    const pages = new PageRendering({ productName: 'Acme <ID>' });
    const login = pages.render('login', { antiforgeryToken: 't' }).toString();
    expect(login).toContain('<body class="gh-narrow">');
    expect(login).toContain('<header class="gh-header"><span class="gh-product">Acme &lt;ID&gt;</span></header>');
    const profile = { antiforgeryToken: 't', email: 'a@example.com', userName: null, emailConfirmed: true, twoFactorEnabled: false, roles: [], logins: [] };
    expect(pages.render('profile', profile).toString()).toContain('<body class="gh-wide">');
    expect(pages.render('organizations', { antiforgeryToken: 't', organizations: [] }).toString()).toContain('<body class="gh-wide">');
    expect(pages.render('error', { status: 404 }).toString()).toContain('<body class="gh-narrow">');
  });

  it('show the logo in the header, named by the product, and let the CSP load it', () => {
    const own = new PageRendering({ productName: 'Acme ID', logo: '/assets/logo.svg' });
    const markup = own.render('login', login).toString();
    expect(markup).toContain('<header class="gh-header"><img class="gh-logo" src="/assets/logo.svg" alt="Acme ID"></header>');
    expect(own.headers['content-security-policy']).toContain(" img-src 'self' data:;");

    const cdn = new PageRendering({ productName: 'Acme "ID"', logo: 'https://static.acme.test/logo.png?v=2' }, { production: true });
    expect(cdn.render('login', login).toString()).toContain('<img class="gh-logo" src="https://static.acme.test/logo.png?v=2" alt="Acme &quot;ID&quot;">');
    expect(cdn.headers['content-security-policy']).toContain(" img-src 'self' data: https://static.acme.test;");
  });

  it('refuse a logo that is not a path on this origin or an https URL', () => {
    for (const logo of ['javascript:alert(1)', 'data:image/svg+xml,<svg/>', '//evil.example/x.png', 'logo.png']) {
      expect(() => new PageRendering({ logo }), logo).toThrow(/pages\.logo must be a path/);
    }
    expect(() => new PageRendering({ logo: 'http://static.acme.test/logo.png' }, { production: true })).toThrow(/pages\.logo/);
  });

  it('mark the kind of each button on its form, and keep the main action a plain form', () => {
    const pages = new PageRendering();
    const profile = { antiforgeryToken: 't', email: 'a@example.com', userName: null, emailConfirmed: true, twoFactorEnabled: true, roles: [], logins: [], linkable: ['demo'] };
    const markup = pages.render('profile', profile).toString();
    expect(markup).toContain('<form method="post" action="/account/password" novalidate>');
    expect(markup).toContain('<form method="post" action="/account/logins/demo" novalidate class="gh-secondary">');
    expect(markup).toContain('<form method="post" action="/account/logout" novalidate class="gh-secondary">');
    const twoFactor = pages.render('authenticator', { antiforgeryToken: 't', twoFactorEnabled: true, remainingRecoveryCodes: 3 }).toString();
    expect(twoFactor).toContain('<form method="post" action="/account/2fa/disable" novalidate class="gh-danger">');
  });
});
