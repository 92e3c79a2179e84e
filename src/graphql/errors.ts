import { GraphQLError } from 'graphql';
import type { PolicyRefusal } from '../security/authentication/index.ts';

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
  /** A request that is no GraphQL request: no query, a member of the wrong type, a hash that does not match its query. */
  | 'BAD_REQUEST'
  /** A persisted-query hash this server does not know (send the query with it), or, with trusted documents, any document not listed. */
  | 'PERSISTED_QUERY_NOT_FOUND'
  /** An `extensions.persistedQuery` of a version other than 1. */
  | 'PERSISTED_QUERY_NOT_SUPPORTED'
  | 'INTERNAL_SERVER_ERROR';

export function graphqlError(code: GraphQLErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

export const unauthenticated = () => graphqlError('UNAUTHENTICATED', 'Sign in to see this field.');
export const forbidden = () => graphqlError('FORBIDDEN', 'You may not see or do this.');

/** The evaluator's refusal as GraphQL renders it: a challenge is `UNAUTHENTICATED`, a forbid `FORBIDDEN`. */
export function refusalError(refusal: PolicyRefusal): GraphQLError {
  return refusal.kind === 'challenge' ? unauthenticated() : forbidden();
}
