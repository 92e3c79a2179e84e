import { describe, expect, it } from 'vitest';
import { withoutSuggestions } from './suggestions.ts';

describe('withoutSuggestions', () => {
  it('drops the suggestion graphql-js appends, whatever it lists', () => {
    for (const [message, kept] of [
      ['Cannot query field "titel" on type "Post". Did you mean "title"?', 'Cannot query field "titel" on type "Post".'],
      ['Unknown argument "frist" on field "Query.posts". Did you mean "first"?', 'Unknown argument "frist" on field "Query.posts".'],
      ['Unknown type "Strin". Did you mean "String", "ID", or "Int"?', 'Unknown type "Strin".'],
      ['Value "RED" does not exist in "Color" enum. Did you mean the enum value "Red"?', 'Value "RED" does not exist in "Color" enum.'],
    ]) {
      expect(withoutSuggestions({ message: message!, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })).toEqual({ message: kept, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    }
  });

  it('leaves other messages alone', () => {
    const error = { message: 'Cannot query field "usr" on type "Query".', locations: [{ line: 1, column: 3 }] };
    expect(withoutSuggestions(error)).toBe(error);
  });
});
