/**
 * Gatehouse's GraphQL rules for `@nestjs/graphql`: the options its drivers take, made from the
 * application's Gatehouse, for `GraphQLModule.forRootAsync`:
 *
 *   GraphQLModule.forRootAsync<ApolloDriverConfig>({
 *     driver: ApolloDriver,
 *     inject: [GatehouseGraphQL],
 *     useFactory: (gatehouse: GatehouseGraphQL) => ({ autoSchemaFile: true, ...gatehouse.apollo() }),
 *   });
 *
 * The schema NestJS builds gets its `@authorize` rules (or `@Extensions({ authorize })` in a
 * code-first schema) put in force, each operation's context is Gatehouse's for its caller, and
 * on Apollo the graphql-ws sockets authenticate at `connection_init` and follow their credential.
 */
import type { IncomingMessage } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import type { Gatehouse } from '../gatehouse.ts';
import { type GraphQLAuthorization, type GraphQLAuthorizationOptions, type GraphQLRefusal, graphqlAuthorization } from '../graphql/graphql-authorization.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { checkSocketLimits, type SocketLimits } from '../graphql/socket-options.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';

/** What the drivers hand their `context` function: `{ req }` (Apollo on Express), or the request itself (on Fastify). */
type DriverRequest = { readonly req: IncomingMessage } | { readonly raw: IncomingMessage };

/** Options of `GatehouseGraphQL.apollo()` and `.mercurius()`. */
export interface NestGraphQLOptions<Context extends object = object, Policy extends string = PolicyName> extends GraphQLAuthorizationOptions<Context, Policy>, SocketLimits {}

/** The part of `ApolloDriverConfig` Gatehouse fills in. */
export interface ApolloDriverOptions<Context extends object = object, Policy extends string = PolicyName> {
  transformSchema(schema: GraphQLSchema): GraphQLSchema;
  context(request: DriverRequest): Promise<GraphQLContext<Policy> & Context>;
  /** NestJS types these without the socket's `extra`; its server is ws's, whose `extra` these read. */
  readonly subscriptions: { readonly 'graphql-ws': ServerOptions<Record<string, unknown> | undefined, unknown> };
}

/** The part of `MercuriusDriverConfig` Gatehouse fills in. */
export interface MercuriusDriverOptions<Context extends object = object, Policy extends string = PolicyName> {
  transformSchema(schema: GraphQLSchema): GraphQLSchema;
  context(request: DriverRequest): Promise<GraphQLContext<Policy> & Context>;
}

/** Injectable: the options of `@nestjs/graphql`'s drivers, on the module's Gatehouse. */
export class GatehouseGraphQL {
  constructor(private readonly gatehouse: Gatehouse) {}

  /** Gatehouse's GraphQL rules, for a GraphQL server the application runs itself. */
  authorization<Context extends object = object, Policy extends string = PolicyName>(options: GraphQLAuthorizationOptions<Context, Policy> = {}): GraphQLAuthorization<Context, Policy> {
    return graphqlAuthorization(this.gatehouse, options);
  }

  /**
   * For the Apollo driver (on platform-express and platform-fastify): `transformSchema`, `context`
   * and `subscriptions` (graphql-ws, at the driver's path). A context of the application's own
   * goes in `options.context`, which adds to Gatehouse's.
   */
  apollo<Context extends object = object, Policy extends string = PolicyName>(options: NestGraphQLOptions<Context, Policy> = {}): ApolloDriverOptions<Context, Policy> {
    const { authorization, limits } = this.split(options);
    return {
      transformSchema: (schema) => authorization.authorize(schema),
      context: (request) => authorization.context(requestOf(request)),
      subscriptions: { 'graphql-ws': authorization.socketOptions(limits) as ServerOptions<Record<string, unknown> | undefined, unknown> },
    };
  }

  /**
   * For the Mercurius driver (platform-fastify): `transformSchema` and `context`. Mercurius's own
   * subscriptions cannot follow a socket's credential; serve them with graphql-ws beside it
   * (docs/nestjs.md, GraphQL).
   */
  mercurius<Context extends object = object, Policy extends string = PolicyName>(options: NestGraphQLOptions<Context, Policy> = {}): MercuriusDriverOptions<Context, Policy> {
    const { authorization } = this.split(options);
    return {
      transformSchema: (schema) => authorization.authorize(schema),
      context: async (request) => {
        const operated = await authorization.operation(requestOf(request));
        if ('context' in operated) return operated.context;
        // Mercurius answers an error its context function throws through Fastify's error handling,
        // which takes the status and headers from the error.
        throw httpError(operated.refusal);
      },
    };
  }

  private split<Context extends object, Policy extends string>({ context, ...limits }: NestGraphQLOptions<Context, Policy>) {
    checkSocketLimits('GatehouseGraphQL', limits);
    return { authorization: graphqlAuthorization<Context, Policy>(this.gatehouse, context === undefined ? {} : { context }), limits };
  }
}

function requestOf(request: DriverRequest): IncomingMessage | { readonly raw: IncomingMessage } {
  return 'req' in request ? request.req : request;
}

/** A refusal as an error Fastify answers with its status and headers. */
function httpError(refusal: GraphQLRefusal): Error {
  const { detail, title } = JSON.parse(refusal.body) as { detail?: string; title?: string };
  return Object.assign(new Error(detail ?? title ?? refusal.statusText), { statusCode: refusal.status, headers: refusal.headers });
}
