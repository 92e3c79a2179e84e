import { GraphQLError } from 'graphql';

/** The `extensions.code` values of docs/reference/graphql.md. */
export type GraphQLErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'NOT_FOUND'
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'QUERY_TOO_COMPLEX'
  /** A `subscribe` over the per-socket cap (`GRAPHQL_MAX_SUBSCRIPTIONS_PER_SOCKET`). */
  | 'TOO_MANY_SUBSCRIPTIONS'
  | 'INTERNAL_SERVER_ERROR';

export function graphqlError(code: GraphQLErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

export const unauthenticated = () => graphqlError('UNAUTHENTICATED', 'Sign in to see this field.');
export const forbidden = () => graphqlError('FORBIDDEN', 'You may not see or do this.');
