import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import type { PolicyProvider } from '../security/authorization/index.ts';
import type { DataVersion } from '../store/ports.ts';
import { ConfigError } from '../config/config-error.ts';
import { applyAuthorization } from './authorize-directive.ts';
import { Authorizer, type ContextBuilder, contextFactory, type GraphQLContext } from './context.ts';
import type { Events } from './events.ts';
import { buildExecutableSchema, type GraphQLResolvers } from './executable-schema.ts';
import { GraphQLService } from './graphql-service.ts';
import { graphqlTransport } from './http-transport.ts';
import type { DocumentLimits } from './limits.ts';
import { OperationDocuments } from './operation-documents.ts';
import { PersistedQueries } from './persisted-queries.ts';
import { TrustedDocuments } from './trusted-documents.ts';
import { type OptionNames, refuseNonObject, refuseUnknownOptions } from '../config/option-names.ts';

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

/**
 * GraphQL for an application's own schema, registered after Gatehouse's plugin: POST and GET at
 * `path` with the document limits, result cache and production rules of docs/reference/graphql.md, and
 * graphql-ws subscriptions on the same path with the live-connection rules (authentication at
 * `connection_init`, re-authentication at the credential's end and at revocations, claims changes).
 */
export async function gatehouseGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  app: FastifyInstance,
  options: GatehouseGraphQLOptions<Context, Policy>,
): Promise<void> {
  checkOptions(options);
  const gatehouse = gatehouseOf(app);
  const { authorization, evaluator, policies, schemes: schemeOptions, metrics } = gatehouse;
  const services = gatehouseServices(gatehouse);
  const { config } = services;
  const path = options.path ?? '/graphql';
  const schema = schemaOf(options);
  const trusted = trustedDocumentsOf(options.trustedDocuments, config.graphqlTrustedDocuments);
  // The application names its policies (Policy); the provider checks each name it is asked for.
  const authorizer = new Authorizer(authorization, policies as PolicyProvider<Policy>, evaluator);
  // Every rule's policy is found now: a misspelt name fails the start, not a request.
  for (const { rule, where } of applyAuthorization(schema)) {
    try {
      authorizer.policyOfRule(rule);
    } catch (error) {
      throw new Error(`gatehouseGraphQL: ${where}: ${(error as Error).message}`);
    }
  }
  const graphql = new GraphQLService({
    schema,
    limits: {
      maxDepth: options.limits?.maxDepth ?? config.graphqlMaxDepth,
      maxAliases: options.limits?.maxAliases ?? config.graphqlMaxAliases,
      maxCost: options.limits?.maxCost ?? config.graphqlMaxCost,
      ...(options.limits?.maxMerges !== undefined ? { maxMerges: options.limits.maxMerges } : {}),
    },
    introspection: options.introspection ?? !config.production,
    suggestions: options.suggestions ?? !config.production,
    logger: services.logger,
    dataVersion: options.dataVersion ?? null,
    ...(metrics ? { liveSubscriptions: metrics.graphqlSubscriptions } : {}),
    documents: new OperationDocuments({
      persisted: options.persistedQueries === false ? null : new PersistedQueries(services.redis),
      trusted: trusted ?? null,
    }),
  });
  if (trusted) checkTrustedDocuments(graphql, trusted, options.trustedDocuments === undefined ? 'GRAPHQL_TRUSTED_DOCUMENTS' : 'trustedDocuments');
  const { events } = options;
  if (events !== undefined) {
    await events.start();
    app.addHook('onClose', () => events.close());
  }
  await graphqlTransport(app, {
    path,
    graphql,
    contextFor: contextFactory(authorizer, options.context),
    services,
    schemeOptions,
    maxSubscriptions: options.maxSubscriptionsPerSocket ?? config.graphqlMaxSubscriptionsPerSocket,
    socketLimits: {
      maxBufferBytes: options.maxSocketBufferBytes ?? config.graphqlMaxSocketBufferBytes,
      maxSocketsPerUser: options.maxSocketsPerUser ?? config.graphqlMaxSocketsPerUser,
      maxSocketsPerIp: options.maxSocketsPerIp ?? config.graphqlMaxSocketsPerIp,
    },
    ...(metrics ? { liveSockets: metrics.graphqlSockets } : {}),
  });
}

const OPTION_NAMES = {
  typeDefs: true, resolvers: true, schema: true, context: true, path: true, limits: true, maxSubscriptionsPerSocket: true,
  maxSocketBufferBytes: true, maxSocketsPerUser: true, maxSocketsPerIp: true, introspection: true, suggestions: true, dataVersion: true, events: true,
  persistedQueries: true, trustedDocuments: true,
} as const satisfies OptionNames<GatehouseGraphQLOptions>;

/** Fastify's own registration options. */
const REGISTRATION_OPTIONS = { prefix: true, logLevel: true, logSerializers: true } as const;

const LIMIT_NAMES = { maxDepth: true, maxAliases: true, maxCost: true, maxMerges: true } as const satisfies OptionNames<DocumentLimits>;

/** One sentence for the first thing wrong: a misspelt option would otherwise be ignored. */
function checkOptions<Context extends object, Policy extends string>(options: GatehouseGraphQLOptions<Context, Policy>): void {
  refuseUnknownOptions('gatehouseGraphQL', options, { ...OPTION_NAMES, ...REGISTRATION_OPTIONS });
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

/** What Gatehouse's plugin left on the instance; a clear error when it is not registered. */
function gatehouseOf(app: FastifyInstance): Gatehouse {
  if (!app.hasDecorator('gatehouse')) {
    throw new Error('gatehouseGraphQL needs Gatehouse: register the gatehouse plugin first, on this instance or a parent of it.');
  }
  return app.gatehouse;
}

function schemaOf<Context extends object, Policy extends string>(options: GatehouseGraphQLOptions<Context, Policy>): GraphQLSchema {
  if (options.schema !== undefined) {
    if (options.typeDefs !== undefined || options.resolvers !== undefined) throw new Error('gatehouseGraphQL takes a schema, or typeDefs with resolvers, not both.');
    return options.schema;
  }
  if (options.typeDefs === undefined) throw new Error('gatehouseGraphQL needs a schema: typeDefs (with resolvers) or a graphql-js schema.');
  return buildExecutableSchema(options.typeDefs, options.resolvers);
}

/** The option's documents (checked like the setting's), else the setting's. */
function trustedDocumentsOf(option: GatehouseGraphQLOptions['trustedDocuments'], setting: TrustedDocuments | undefined): TrustedDocuments | undefined {
  if (option === undefined) return setting;
  if (option === null) return undefined;
  try {
    return TrustedDocuments.from(option);
  } catch (error) {
    throw new Error(`gatehouseGraphQL: trustedDocuments must be {"<sha256>": "<document>"}: ${(error as Error).message}.`);
  }
}

/**
 * Every trusted document parses, validates and keeps within the limits: one that cannot run is a
 * mistake of the build that listed it, told at start rather than to a user.
 */
function checkTrustedDocuments(graphql: GraphQLService, trusted: TrustedDocuments, source: 'GRAPHQL_TRUSTED_DOCUMENTS' | 'trustedDocuments'): void {
  for (const [hash, text] of trusted.entries()) {
    const refusal = graphql.refusalOf(text);
    if (refusal === null) continue;
    const why = `${hash} cannot run: ${refusal.errors[0]?.message ?? 'refused'}`;
    // From the setting, a bad value of it (exit 2); from the option, the application's mistake.
    if (source === 'GRAPHQL_TRUSTED_DOCUMENTS') throw new ConfigError(source, `a file of documents that run on this schema (${why})`, null);
    throw new Error(`gatehouseGraphQL: the trusted document ${why}`);
  }
}
