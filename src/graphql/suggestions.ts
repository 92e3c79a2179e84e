import type { GraphQLFormattedError } from 'graphql';

/** How graphql-js ends a message it adds suggestions to: ` Did you mean "title"?`, `… "a", "b", or "c"?`. */
const SUGGESTION = ' Did you mean ';

/**
 * The error without the names graphql-js suggests for a misspelt field, argument, type or enum
 * value. Those names come from the schema, so in production, where introspection is off, they
 * would let anyone map the schema by guessing (SEC-97); the rest of the message stays.
 */
export function withoutSuggestions(error: GraphQLFormattedError): GraphQLFormattedError {
  const at = error.message.lastIndexOf(SUGGESTION);
  if (at === -1 || !error.message.endsWith('?')) return error;
  return { ...error, message: error.message.slice(0, at) };
}
