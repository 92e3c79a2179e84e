import type { GraphiqlAssets } from './graphiql-assets.ts';

/** Where the page's files are served. */
export const GRAPHIQL_ASSETS_PREFIX = '/graphiql/assets/';

/**
 * GraphiQL for `/graphiql`, in development only (docs/reference/graphql.md). Every file comes from this
 * service (GraphiQL and React from their npm packages, the start-up script and the page's style
 * from this folder), so the page works offline and its policy allows scripts from
 * this origin only: no inline script, no `eval`, no CDN. Styles are 'self' as well: GraphiQL's
 * stylesheet is a file and React sets element styles through the DOM, which CSP does not govern.
 * Its fonts are `data:` URLs inside the stylesheet.
 */
export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
});

export function graphiqlPage(assets: GraphiqlAssets): string {
  const url = (path: string) => `${GRAPHIQL_ASSETS_PREFIX}${path}`;
  const styles = assets.styles.map((style) => `<link rel="stylesheet" href="${url(style.path)}">`).join('\n');
  const scripts = assets.scripts.map((script) => `<script src="${url(script.path)}"></script>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL — Gatehouse</title>
${styles}
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
${scripts}
</body>
</html>
`;
}
