import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../security/errors.ts';
import { assetHeaders, graphiqlAssets } from './graphiql-assets.ts';
import { GRAPHIQL_ASSETS_PREFIX, GRAPHIQL_HEADERS, graphiqlPage } from './graphiql-page.ts';

const ANONYMOUS = { config: { authorization: { allowAnonymous: true } } };

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
    if (!asset) throw GatehouseError.notFound((m) => m.problemNoSuchFile);
    return reply.headers(assetHeaders(asset)).send(createReadStream(asset.file));
  });
}
