/**
 * Server-rendered HTML without a template engine: a tagged template that escapes every
 * interpolated value unless it is already `Html`. The pages are few and small, and escaping by
 * default is the one property that matters; an engine would add a dependency and a second
 * language for no more safety (docs/decisions/0018-pages-and-antiforgery.md).
 */

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
 * forms end at the OpenID provider. `styleSources` are where an application's stylesheet may
 * come from (`'self'` or its origin); inline styles stay allowed for the built-in ones.
 * `scripts` is for the pages that load the passkey script (a file of this origin, never inline)
 * and let it call this origin's JSON routes: `script-src 'self'; connect-src 'self'`.
 */
export function pageHeaders(
  formTargets: readonly string[] = [],
  styleSources: readonly string[] = [],
  { scripts = false }: { readonly scripts?: boolean } = {},
): Readonly<Record<string, string>> {
  const formAction = ["'self'", ...formTargets].join(' ');
  const styleSrc = ["'unsafe-inline'", ...styleSources].join(' ');
  const scriptSrc = scripts ? " script-src 'self'; connect-src 'self';" : '';
  return Object.freeze({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none';${scriptSrc} style-src ${styleSrc}; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  });
}

/** The headers of a service without external providers or a stylesheet of its own. */
export const PAGE_HEADERS = pageHeaders();

/** The built-in look: small, readable, no web fonts, no images. */
export const BUILT_IN_STYLES = Html.trusted(`<style>
body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}
input[type=text],input[type=email],input[type=tel],input[type=password]{display:block;width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.check label{display:inline;font-weight:400}
button{margin-top:1.25rem;padding:.5rem 1.25rem;font-size:1rem}
.error{color:#b00020}
[role=alert]{border:1px solid #b00020;padding:.5rem 1rem;margin:1rem 0}
.notice{border:1px solid #2e7d32;padding:.5rem 1rem;margin:1rem 0}
nav a{margin-right:1rem}
</style>`);

/** What the layout gets: the page's heading and content, and the look the options chose. */
export interface LayoutModel {
  /** The page's own title, its `<h1>`. */
  readonly title: string;
  /** The `<title>`: the title template applied to the page's title and the product name. */
  readonly documentTitle: string;
  readonly productName: string;
  /** The built-in `<style>`, or nothing when the options turned it off. */
  readonly builtInStyles: Html;
  /** The application's stylesheet URL, if any. */
  readonly stylesheet: string | null;
  readonly main: Html;
}

/** The built-in layout: one column, the page's title as its heading. */
export function defaultLayout(page: LayoutModel): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.documentTitle}</title>
${page.builtInStyles}
${page.stylesheet === null ? '' : html`<link rel="stylesheet" href="${page.stylesheet}">`}
</head>
<body>
<main>
<h1>${page.title}</h1>
${page.main}
</main>
</body>
</html>`;
}
