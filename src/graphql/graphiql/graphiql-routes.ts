import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../security/errors.ts';
import { graphiqlAssets } from './graphiql-assets.ts';
import { GRAPHIQL_ASSETS_PREFIX, GRAPHIQL_HEADERS, graphiqlPage } from './graphiql-page.ts';

const ANONYMOUS = { config: { authorization: { allowAnonymous: true } } };
/** Asset URLs name their version, so a browser may keep a file for a year without asking again. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * `/graphiql` and its files, for an application to register in development only (production has
 * no such route, docs/reference/graphql.md). Files come from a fixed allow-list resolved at start;
 * a request path only selects one of them, so nothing outside it (`../`, another package's file,
 * a source map) is reachable.
 */
export async function graphiqlRoutes(app: FastifyInstance): Promise<void> {
  const assets = graphiqlAssets();
  const page = graphiqlPage(assets);

  app.get('/graphiql', ANONYMOUS, async (_request, reply) => reply.headers(GRAPHIQL_HEADERS).send(page));

  app.get<{ Params: { '*': string } }>(`${GRAPHIQL_ASSETS_PREFIX}*`, ANONYMOUS, async (request, reply) => {
    const asset = assets.byPath.get(request.params['*']);
    if (!asset) throw GatehouseError.notFound('There is no such file.');
    return reply
      .headers({
        'content-type': asset.contentType,
        'content-length': String(asset.size),
        'cache-control': ASSET_CACHE,
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'same-origin',
      })
      .send(createReadStream(asset.file));
  });
}
