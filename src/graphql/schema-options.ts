import type { GraphQLSchema } from 'graphql';
import { ConfigError } from '../config/config-error.ts';
import { buildExecutableSchema } from './executable-schema.ts';
import type { GatehouseGraphQLOptions } from './graphql-options.ts';
import type { GraphQLService } from './graphql-service.ts';
import { TrustedDocuments } from './trusted-documents.ts';

/** The options' schema: a graphql-js schema, or one built from type definitions and resolvers. */
export function schemaOf<Context extends object, Policy extends string>(options: GatehouseGraphQLOptions<Context, Policy>): GraphQLSchema {
  if (options.schema !== undefined) {
    if (options.typeDefs !== undefined || options.resolvers !== undefined) throw new Error('gatehouseGraphQL takes a schema, or typeDefs with resolvers, not both.');
    return options.schema;
  }
  if (options.typeDefs === undefined) throw new Error('gatehouseGraphQL needs a schema: typeDefs (with resolvers) or a graphql-js schema.');
  return buildExecutableSchema(options.typeDefs, options.resolvers);
}

/** The option's documents (checked like the setting's), else the setting's. */
export function trustedDocumentsOf(option: GatehouseGraphQLOptions['trustedDocuments'], setting: TrustedDocuments | undefined): TrustedDocuments | undefined {
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
export function checkTrustedDocuments(graphql: GraphQLService, trusted: TrustedDocuments, source: 'GRAPHQL_TRUSTED_DOCUMENTS' | 'trustedDocuments'): void {
  for (const [hash, text] of trusted.entries()) {
    const refusal = graphql.refusalOf(text);
    if (refusal === null) continue;
    const why = `${hash} cannot run: ${refusal.errors[0]?.message ?? 'refused'}`;
    // From the setting, a bad value of it (exit 2); from the option, the application's mistake.
    if (source === 'GRAPHQL_TRUSTED_DOCUMENTS') throw new ConfigError(source, `a file of documents that run on this schema (${why})`, null);
    throw new Error(`gatehouseGraphQL: the trusted document ${why}`);
  }
}
