/**
 * GraphiQL for `/graphiql`, in development only (SPEC section 6): the page loads GraphiQL's
 * published bundle from unpkg (pinned versions, with subresource integrity left to the CDN's
 * immutable URLs) and talks to this service's `/graphql`. Production serves no such page.
 */
const VERSIONS = { react: '18.3.1', graphiql: '3.8.3' } as const;
const CDN = 'https://unpkg.com';

export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': `default-src 'none'; script-src ${CDN} 'unsafe-inline'; style-src ${CDN} 'unsafe-inline'; img-src 'self' data: ${CDN}; font-src ${CDN} data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
});

export function graphiqlPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>GraphiQL — Gatehouse</title>
<link rel="stylesheet" href="${CDN}/graphiql@${VERSIONS.graphiql}/graphiql.min.css">
<style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql">Loading GraphiQL…</div>
<script crossorigin src="${CDN}/react@${VERSIONS.react}/umd/react.production.min.js"></script>
<script crossorigin src="${CDN}/react-dom@${VERSIONS.react}/umd/react-dom.production.min.js"></script>
<script crossorigin src="${CDN}/graphiql@${VERSIONS.graphiql}/graphiql.min.js"></script>
<script>
  const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).href });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
</script>
</body>
</html>
`;
}
