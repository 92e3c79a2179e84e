/**
 * Whether a request is a browser navigating to a page, which gets the login redirect instead of
 * a 401 (docs/reference/http.md). API, GraphQL and XHR requests never do: `X-Requested-With:
 * XMLHttpRequest`, or a `Sec-Fetch-Mode` other than `navigate` (fetch, cors, no-cors…), marks
 * a script's request even when it accepts HTML.
 */
export function isBrowserNavigation(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  const requestedWith = headers['x-requested-with'];
  if (typeof requestedWith === 'string' && requestedWith.toLowerCase() === 'xmlhttprequest') return false;
  const mode = headers['sec-fetch-mode'];
  if (mode !== undefined && mode !== 'navigate') return false;
  return prefersHtml(headers.accept);
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * `Accept` ranks HTML first: an HTML type has a quality above zero and no other specific type
 * (wildcards aside) is ranked higher. `*\/*` alone, or JSON first, is an API client; so is a
 * request without `Accept`. Several `Accept` lines count as one list, as HTTP joins them.
 */
export function prefersHtml(accept: string | readonly string[] | undefined): boolean {
  if (accept === undefined) return false;
  let html = 0;
  let other = 0;
  for (const range of (typeof accept === 'string' ? accept : accept.join(',')).split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type === '' || type.endsWith('/*')) continue;
    const q = quality(parameters);
    if (HTML_TYPES.has(type)) html = Math.max(html, q);
    else other = Math.max(other, q);
  }
  return html > 0 && html >= other;
}

function quality(parameters: readonly string[]): number {
  const q = parameters.find((parameter) => parameter.startsWith('q='));
  if (q === undefined) return 1;
  const value = Number(q.slice(2));
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0;
}
