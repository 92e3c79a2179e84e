import type { GraphQLSchema } from 'graphql';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { DataVersion } from '../store/ports.ts';
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';
import type { ContextBuilder, GraphQLContext } from './context.ts';
import type { Events } from './events.ts';
import type { GraphQLResolvers } from './executable-schema.ts';
import type { DocumentLimits } from './limits.ts';

/**
 * An application's GraphQL API on Gatehouse: its schema — type definitions and resolvers, or a
 * graphql-js schema — with `@authorize` rules checked by the same policies as HTTP.
 */
export interface GatehouseGraphQLOptions<Context extends object = object, Policy extends string = PolicyName> {
  /** Type definitions in SDL; put `authorizeDirective` among them to use `@authorize`. */
  readonly typeDefs?: string | readonly string[];
  /** The resolvers of `typeDefs`, with the context of each operation. */
  readonly resolvers?: GraphQLResolvers<GraphQLContext<Policy> & Context>;
  /** A graphql-js schema instead of `typeDefs`: rules as the `authorize` extension of fields and object types. */
  readonly schema?: GraphQLSchema;
  /** What the application adds to each operation's context (its loaders…); getters stay lazy. */
  readonly context?: ContextBuilder<Policy, Context>;
  /** Where HTTP and WebSocket requests are served. @default '/graphql' */
  readonly path?: string;
  /** Document limits. @default GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_COST of the settings */
  readonly limits?: Partial<DocumentLimits>;
  /** @default GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET of the settings */
  readonly maxSubscriptionsPerSocket?: number;
  /** Unsent bytes a socket may hold; past them it is closed with 4408. @default GRAPHQL_MAX_SOCKET_BUFFER_BYTES of the settings */
  readonly maxSocketBufferBytes?: number;
  /** Open sockets of one user (or API-key client) on this instance; one more is closed with 4429. @default GRAPHQL_MAX_SOCKETS_PER_USER of the settings */
  readonly maxSocketsPerUser?: number;
  /** Open sockets from one client address on this instance; one more is closed with 4429. @default GRAPHQL_MAX_SOCKETS_PER_IP of the settings */
  readonly maxSocketsPerIp?: number;
  /** Whether introspection is answered. @default outside production only */
  readonly introspection?: boolean;
  /** Whether error messages suggest schema names for misspelt ones. @default outside production only */
  readonly suggestions?: boolean;
  /**
   * Tells whether the data the schema reads may have changed: answers that are the same for every
   * caller are kept while it holds (the store's `dataVersion` when the data lives in Gatehouse's
   * store). @default none: nothing is kept
   */
  readonly dataVersion?: DataVersion | null;
  /** The event source of the `Subscription` fields, started with the plugin and closed with the app. */
  readonly events?: Events<any>;
  /**
   * Automatic persisted queries (Apollo's protocol, as Apollo Client's and urql's persisted-query
   * links send them): a query registered under its SHA-256 once it passes the limits, in memory
   * and through Gatehouse's Redis when there is one. @default true
   */
  readonly persistedQueries?: boolean;
  /**
   * The only documents that run, `{"<sha256>": "<document>"}` (a manifest generated at build
   * time), by hash or by text, over HTTP and WebSocket; anything else is 400
   * `PERSISTED_QUERY_NOT_FOUND`. Each must be a valid document of the schema within the limits, or
   * the start fails; null for none. @default GRAPHQL_TRUSTED_DOCUMENTS of the settings
   */
  readonly trustedDocuments?: Readonly<Record<string, string>> | ReadonlyMap<string, string> | null;
}

const OPTION_NAMES = {
  typeDefs: true, resolvers: true, schema: true, context: true, path: true, limits: true, maxSubscriptionsPerSocket: true,
  maxSocketBufferBytes: true, maxSocketsPerUser: true, maxSocketsPerIp: true, introspection: true, suggestions: true, dataVersion: true, events: true,
  persistedQueries: true, trustedDocuments: true,
} as const satisfies OptionNames<GatehouseGraphQLOptions>;

const LIMIT_NAMES = { maxDepth: true, maxAliases: true, maxCost: true, maxMerges: true } as const satisfies OptionNames<DocumentLimits>;

/** One sentence for the first thing wrong: a misspelt option would otherwise be ignored. `hostOptions` are the host's own (Fastify's `prefix`…). */
export function checkGraphQLOptions<Context extends object, Policy extends string>(
  options: GatehouseGraphQLOptions<Context, Policy>,
  hostOptions: Readonly<Record<string, true>> = {},
): void {
  refuseUnknownOptions('gatehouseGraphQL', options, { ...OPTION_NAMES, ...hostOptions });
  if (options.limits !== undefined) {
    refuseNonObject('gatehouseGraphQL: limits', options.limits);
    refuseUnknownOptions('gatehouseGraphQL: limits', options.limits, LIMIT_NAMES);
  }
  if (options.path !== undefined && !/^\/[^\s?#]*$/.test(options.path)) throw new Error(`gatehouseGraphQL: path must start with "/" (got "${options.path}").`);
  const { maxSubscriptionsPerSocket, maxSocketBufferBytes, maxSocketsPerUser, maxSocketsPerIp } = options;
  const counts = { ...options.limits, maxSubscriptionsPerSocket, maxSocketBufferBytes, maxSocketsPerUser, maxSocketsPerIp };
  for (const [name, value] of Object.entries(counts)) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) throw new Error(`gatehouseGraphQL: ${name} must be a positive integer.`);
  }
  if (options.context !== undefined && typeof options.context !== 'function') throw new Error('gatehouseGraphQL: context must be a function that returns an object.');
}

