/**
 * GraphQL on a Fetch API runtime: Gatehouse's GraphQL endpoint (its `@authorize` rules, document
 * limits, persisted and trusted documents, result cache) as one Web-standard handler. On Next.js,
 * a route file at the path exports it:
 *
 *   const graphql = await auth.graphql({ typeDefs, resolvers });
 *   export const GET = graphql.fetch;
 *   export const POST = graphql.fetch;
 *
 * Such runtimes have no upgrades to take: subscriptions need a host with a Node server (Express,
 * Hono on `@hono/node-server`, NestJS, Fastify).
 */
import type { Gatehouse } from '../gatehouse.ts';
import { createGraphQLEndpoint } from '../graphql/graphql-endpoint.ts';
import { graphqlFetchHandler } from '../graphql/graphql-fetch.ts';
import { checkGraphQLOptions, type GatehouseGraphQLOptions } from '../graphql/graphql-options.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** An application's GraphQL API on a Fetch API runtime. */
export interface WebGraphQL {
  /** The path the options name (`/graphql` by default): where the application routes it. */
  readonly path: string;
  /**
   * Answers a request routed to the GraphQL path: GET and POST, 405 for other methods; valid
   * credentials make the caller, invalid ones are 401, none leave it anonymous (the fields carry
   * their own rules). Extra arguments (a route's context) are ignored.
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /** Closes the schema's event source. */
  close(): Promise<void>;
}

/** The schema's endpoint on `gatehouse`, started; `addressOf` tells a request's client address as the entry does for every request. */
export async function webGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  gatehouse: Gatehouse,
  options: GatehouseGraphQLOptions<Context, Policy>,
  addressOf: (request: Request) => string,
): Promise<WebGraphQL> {
  checkGraphQLOptions(options);
  const endpoint = createGraphQLEndpoint(gatehouse, options);
  await endpoint.start();
  const answer = graphqlFetchHandler(gatehouse, endpoint);
  return {
    path: endpoint.path,
    fetch: (request) => answer(request, { ip: addressOf(request) }),
    close: () => endpoint.close(),
  };
}
