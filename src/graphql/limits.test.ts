import { buildSchema, parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exceededLimit, measureDocument } from './limits.ts';

const schema = buildSchema(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));
const measure = (query: string, variables?: Record<string, unknown>) => measureDocument(schema, parse(query), variables);

describe('measureDocument (SPEC section 6)', () => {
  it('counts depth as nested selection sets: the SPEC example is 4', () => {
    expect(measure('{ posts { author { posts { id } } } }').depth).toBe(4);
    expect(measure('{ me { id } }').depth).toBe(2);
  });

  it('costs each field 1 times the product of the enclosing lists’ first: the SPEC example is 81', () => {
    expect(measure('{ posts(first: 10) { id author { posts(first: 5) { id } } } }').cost).toBe(81);
  });

  it('uses the declared defaults of first (50 for posts, 20 for User.posts)', () => {
    expect(measure('{ posts { id } }').cost).toBe(1 + 50);
    expect(measure('{ me { posts { id } } }').cost).toBe(1 + 1 + 20);
  });

  it('expands fragments where they are spread, and inline fragments, for all three measures', () => {
    const query = `
      { a: posts(first: 2) { ...Fields } b: posts(first: 3) { ... on Post { id } } }
      fragment Fields on Post { id x: title author { id } }`;
    expect(measure(query)).toEqual({ depth: 3, aliases: 3, cost: 1 + 2 + 2 + 2 + 2 + 1 + 3 });
  });

  it('leaves introspection out of the depth, and survives a fragment spread inside itself', () => {
    expect(measure('{ __schema { types { fields { type { name } } } } posts { id } }').depth).toBe(2);
    expect(() => measure('{ posts { ...A } } fragment A on Post { author { posts { ...A } } }')).not.toThrow();
  });

  it('counts a variable first at its value, or at 1 before the variables are known', () => {
    const query = 'query($n: Int) { posts(first: $n) { id } }';
    expect(measure(query, { n: 7 }).cost).toBe(8);
    expect(measure(query).cost).toBe(2);
    expect(measure(query, {}).cost).toBe(51);
  });

  it('names the first limit exceeded', () => {
    const limits = { maxDepth: 3, maxAliases: 1, maxCost: 100 };
    expect(exceededLimit({ depth: 3, aliases: 1, cost: 100 }, limits)).toBeNull();
    expect(exceededLimit({ depth: 4, aliases: 0, cost: 0 }, limits)).toBe('depth');
    expect(exceededLimit({ depth: 1, aliases: 2, cost: 0 }, limits)).toBe('aliases');
    expect(exceededLimit({ depth: 1, aliases: 0, cost: 101 }, limits)).toBe('cost');
  });
});
