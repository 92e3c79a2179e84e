import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { errorResponse, toResponse } from '../../endpoints/web-exchange.ts';
import { GatehouseError } from '../../security/errors.ts';
import { assetHeaders, graphiqlAssets } from './graphiql-assets.ts';
import { GRAPHIQL_ASSETS_PREFIX, GRAPHIQL_HEADERS, graphiqlPage } from './graphiql-page.ts';

/** GraphiQL's page and files as a Web-standard handler, for hosts that speak the Fetch API or bridge to it. */
export interface GraphiqlHandler {
  /** Whether the handler answers this method and path (`GET`/`HEAD` of `/graphiql` and of its files). */
  serves(method: string, path: string): boolean;
  /** The page, a file, or 404 problem+json for a path under the files' prefix that is none of them. */
  (request: Request): Promise<Response>;
}

const NO_SUCH_FILE = errorResponse(GatehouseError.notFound((m) => m.problemNoSuchFile));

/**
 * `/graphiql` and its files for an application to serve in development only (production has no
 * such route, docs/reference/graphql.md), from the same allow-list as the Fastify host's routes
 * (graphiql-routes.ts): a request path only selects a file resolved at start.
 */
export function graphiqlFetchHandler(): GraphiqlHandler {
  const assets = graphiqlAssets();
  const page = graphiqlPage(assets);
  const serves = (method: string, path: string) => (method === 'GET' || method === 'HEAD') && (path === '/graphiql' || path.startsWith(GRAPHIQL_ASSETS_PREFIX));
  const answer = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const body = (stream: () => BodyInit) => (request.method === 'HEAD' ? null : stream());
    if (path === '/graphiql') return new Response(body(() => page), { status: 200, headers: GRAPHIQL_HEADERS });
    const asset = assets.byPath.get(path.slice(GRAPHIQL_ASSETS_PREFIX.length));
    if (asset === undefined) {
      return toResponse({ ...NO_SUCH_FILE, headers: { ...NO_SUCH_FILE.headers, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
    }
    return new Response(body(() => Readable.toWeb(createReadStream(asset.file)) as ReadableStream), { status: 200, headers: assetHeaders(asset) });
  };
  return Object.assign(answer, { serves });
}
