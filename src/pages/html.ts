/**
 * Server-rendered HTML without a template engine: a tagged template that escapes every
 * interpolated value unless it is already `Html`. The pages are few and small, and escaping by
 * default is the one property that matters; an engine would add a dependency and a second
 * language for no more safety (docs/decisions/0018-pages-and-antiforgery.md).
 */
import type { PageName } from './rendering.ts';

/** Markup known to be safe: built by `html` or `Html.trusted`. */
export class Html {
  private constructor(readonly markup: string) {}

  /** For constant markup written in this code base only; never for input. */
  static trusted(markup: string): Html {
    return new Html(markup);
  }

  toString(): string {
    return this.markup;
  }
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: strings are escaped, `Html` and arrays of it are inserted as they are. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let markup = strings[0]!;
  for (let i = 0; i < values.length; i++) markup += render(values[i]!) + strings[i + 1]!;
  return Html.trusted(markup);
}

/**
 * The page's security headers: no script (but the passkey script, below), forms only to this origin, no framing
 * (clickjacking), no referrer carrying codes from the query string to other sites. Not
 * `no-referrer`: browsers then send `Origin: null` with form posts, which the cross-site check
 * must refuse. `formTargets` are the origins a form post may be redirected to besides this one:
 * `form-action` governs the redirects of a form post too, and the profile's "Link <provider>"
 * forms end at the OpenID provider. `styleSources` are where stylesheets may come from: `'self'`
 * for the built-in one (a file this service serves, never inline: decision 0094) and the
 * application's, or its origin; none leaves `style-src` out, so `default-src 'none'` refuses every
 * style. `imageSources` are origins of images besides this one and `data:` (the logo's).
 * `scripts` is for the pages that load the passkey script (a file of this origin, never inline)
 * and let it call this origin's JSON routes: `script-src 'self'; connect-src 'self'`.
 */
export function pageHeaders(
  formTargets: readonly string[] = [],
  styleSources: readonly string[] = [],
  { scripts = false, imageSources = [] }: { readonly scripts?: boolean; readonly imageSources?: readonly string[] } = {},
): Readonly<Record<string, string>> {
  const formAction = ["'self'", ...formTargets].join(' ');
  const styleSrc = styleSources.length === 0 ? '' : ` style-src ${distinct(styleSources).join(' ')};`;
  const imgSrc = distinct(["'self'", 'data:', ...imageSources]).join(' ');
  const scriptSrc = scripts ? " script-src 'self'; connect-src 'self';" : '';
  return Object.freeze({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none';${scriptSrc}${styleSrc} img-src ${imgSrc}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  });
}

/** Each source once, in the order given. */
function distinct(sources: readonly string[]): string[] {
  return [...new Set(sources)];
}

/** The headers of a service with the built-in stylesheet, and without external providers or a stylesheet of its own. */
export const PAGE_HEADERS = pageHeaders([], ["'self'"]);

/**
 * The sign-in flows and their ends, in a narrow card. Every other page (the settings, the lists, a
 * page added later) gets the wide one: a narrow card would squeeze a list, a wide one only spaces a form.
 */
const NARROW_PAGES: ReadonlySet<PageName> = new Set<PageName>([
  'login',
  'twoFactorLogin',
  'register',
  'registrationSent',
  'emailConfirmed',
  'resendConfirmation',
  'forgotPassword',
  'resetPassword',
  'passwordResetDone',
  'invitation',
  'error',
  'externalLoginRefused',
]);

/** What the layout gets: the page's heading and content, and the look the options chose. */
export interface LayoutModel {
  /** Which page this is (`login`, `profile`, …): the built-in layout gives the sign-in flows a narrow card, the others a wide one. */
  readonly name: PageName;
  /** The request's language tag (`en`, `de`): the `<html lang>`. */
  readonly language: string;
  /** The page's own title, its `<h1>`. */
  readonly title: string;
  /** The `<title>`: the title template applied to the page's title and the product name. */
  readonly documentTitle: string;
  readonly productName: string;
  /** The `<link>` of the built-in stylesheet (served by this service, with `integrity`), or nothing when the options turned it off. */
  readonly builtInStyles: Html;
  /** The application's stylesheet URL, if any. */
  readonly stylesheet: string | null;
  /** The logo's URL, if any: shown in the header, the product name its text alternative. */
  readonly logo: string | null;
  readonly main: Html;
}

/** The built-in layout: the product's name (or logo) above a card that holds the page, its title as its heading. */
export function defaultLayout(page: LayoutModel): Html {
  const width = NARROW_PAGES.has(page.name) ? 'gh-narrow' : 'gh-wide';
  return html`<!doctype html>
<html lang="${page.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.documentTitle}</title>
${page.builtInStyles}
${page.stylesheet === null ? '' : html`<link rel="stylesheet" href="${page.stylesheet}">`}
</head>
<body class="${width}">
<header class="gh-header">${brand(page)}</header>
<main>
<h1>${page.title}</h1>
${page.main}
</main>
</body>
</html>`;
}

/** The logo, named by the product for those who do not see it; else the product's name. */
function brand(page: LayoutModel): Html {
  return page.logo === null ? html`<span class="gh-product">${page.productName}</span>` : html`<img class="gh-logo" src="${page.logo}" alt="${page.productName}">`;
}
