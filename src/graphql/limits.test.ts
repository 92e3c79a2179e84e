import { buildSchema, getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { exceededLimit, measureDocument } from './limits.ts';

/** The posts schema of docs/reference/graphql.md, whose examples the measures follow. */
const schema = buildSchema(`
  type Post { id: ID!  title: String!  body: String!  authorId: ID!  author: User!  createdAt: String! }
  type User { id: ID!  userName: String  roles: [String!]!  email: String  posts(first: Int = 20): [Post!]! }
  type Query { posts(first: Int = 50): [Post!]!  post(id: ID!): Post  me: User }
  type Mutation {
    createPost(title: String!, body: String!): Post!
    updatePost(id: ID!, title: String, body: String): Post!
    deletePost(id: ID!): Boolean!
  }
  type Subscription { postCreated: Post! }
`);
const measure = (query: string, variables?: Record<string, unknown>) => measureDocument(schema, parse(query), variables);
const DEFAULTS = { maxDepth: 10, maxAliases: 15, maxCost: 1000 };

/** Fragments T0 … T(n-1) on `type`, each holding `body(next)`; the last holds `leaf`. */
const chain = (n: number, type: string, body: (next: string) => string, leaf: string) =>
  Array.from({ length: n }, (_, i) => `fragment T${i} on ${type} { ${i === n - 1 ? leaf : body(`T${i + 1}`)} }`).join(' ');
/** An anonymous query of `n` fragments, each spreading the next twice; the last holds one aliased field. */
const bomb = (n: number) => `{ ...T0 } ${chain(n, 'Query', (next) => `...${next} ...${next}`, 'a: __typename')}`;

describe('measureDocument (docs/reference/graphql.md)', () => {
  it('counts depth as nested selection sets: the reference’s example is 4', () => {
    expect(measure('{ posts { author { posts { id } } } }').depth).toBe(4);
    expect(measure('{ me { id } }').depth).toBe(2);
  });

  it('costs each field 1 times the product of the enclosing lists’ first: the reference’s example is 81', () => {
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
    expect(measure(query)).toEqual({ depth: 3, aliases: 3, cost: 1 + 2 + 2 + 2 + 2 + 1 + 3, merges: 0 });
  });

  it('counts introspection like any field, except that ofType adds no level', () => {
    expect(measure('{ __schema { types { fields { type { name } } } } posts { id } }')).toEqual({ depth: 5, aliases: 0, cost: 5 + 1 + 50, merges: 0 });
    expect(measure('{ t: __type(name: "Post") { ofType { ofType { ofType { name } } } } }')).toEqual({ depth: 2, aliases: 1, cost: 5, merges: 0 });
    // ofType is only __Type's: elsewhere a field of that name is a level like any other.
    expect(measure('{ posts { ofType { ofType { id } } } }').depth).toBe(4);
  });

  it('lets GraphiQL’s introspection query pass the default limits (depth 10, aliases 15, cost 1000)', () => {
    for (const options of [{}, { typeDepth: 7 }, { specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }]) {
      const measured = measure(getIntrospectionQuery(options));
      expect(measured.depth).toBe(6);
      expect(measured.aliases).toBe(0);
      expect(measured.cost).toBeLessThanOrEqual(230);
    }
  });

  it('measures each fragment once: a bomb of 200 fragments, each spreading the next twice, saturates instead of expanding', () => {
    const measured = measure(bomb(200));
    // 2^200 expanded fields: the sum stops at the largest exact integer, never Infinity.
    expect(measured.cost).toBe(Number.MAX_SAFE_INTEGER);
    expect(measured.aliases).toBe(Number.MAX_SAFE_INTEGER);
    expect(measured.depth).toBe(1);
    expect(measureDocument(schema, parse(bomb(200)), undefined, DEFAULTS)).toMatchObject({ aliases: 16 });
    expect(exceededLimit(measureDocument(schema, parse(bomb(200)), undefined, DEFAULTS), DEFAULTS)).toBe('aliases');
    // Four `a` merged into one: 6 pairs.
    expect(measure(bomb(3))).toEqual({ depth: 1, aliases: 4, cost: 4, merges: 6 });
  });

  it('counts a fragment at the level and under the lists where it is spread', () => {
    const query = '{ posts(first: 3) { ...P } post(id: 1) { author { ...U } } } fragment P on Post { author { ...U } } fragment U on User { posts(first: 2) { id } }';
    // posts 1 + 3 × (author 1 + U), U = posts 1 + 2 × id 1 = 3; post 1 + author 1 + U 3.
    expect(measure(query)).toEqual({ depth: 4, aliases: 0, cost: 1 + 3 * (1 + 3) + 1 + 1 + 3, merges: 0 });
  });

  it('counts a bomb nested in introspection, in inline fragments and in lists', () => {
    const inIntrospection = `{ __schema { types { ...T0 } } } ${chain(30, '__Type', (next) => `a: name b: kind ...${next} ... on __Type { ...${next} }`, 'name')}`;
    expect(exceededLimit(measureDocument(schema, parse(inIntrospection), undefined, DEFAULTS), DEFAULTS)).toBe('aliases');
    const inLists = `{ posts(first: 100) { ...T0 } } ${chain(30, 'Post', (next) => `...${next} ...${next}`, 'id')}`;
    expect(exceededLimit(measureDocument(schema, parse(inLists), undefined, DEFAULTS), DEFAULTS)).toBe('cost');
  });

  it('ends on cycles, counts unknown fragments as nothing, and measures fragments no operation spreads', () => {
    expect(measure('{ posts { ...A } } fragment A on Post { author { posts { ...A } } }')).toEqual({ depth: 3, aliases: 0, cost: 1 + 50 * (1 + 1 + 20 * 0), merges: 0 });
    expect(measure('{ me { ...A } } fragment A on User { ...B } fragment B on User { ...A id }')).toEqual({ depth: 2, aliases: 0, cost: 2, merges: 0 });
    expect(measure('{ posts { ...Nowhere } }')).toEqual({ depth: 1, aliases: 0, cost: 1, merges: 0 });
    expect(measure(`{ me { id } } ${bomb(40).replace(/^\{[^}]*\}/, '')}`).aliases).toBe(2 ** 39);
  });

  it('counts the pairs of fields merged into one, as validation compares them, wherever fragments bring them', () => {
    expect(measure('{ a: post(id: 1) { id } a: post(id: 1) { id } }').merges).toBe(2);
    expect(measure('{ me { id ...U ... on User { id } } } fragment U on User { id }').merges).toBe(3);
    // Merged below as well: the two posts' authors, and their ids.
    expect(measure('{ posts { author { id } } ...P } fragment P on Query { posts { author { id } } }').merges).toBe(3);
    const copies = `{ ${'post(id: 1) { author { id } } '.repeat(333)} }`;
    expect(measure(copies).merges).toBe(3 * ((333 * 332) / 2));
    expect(exceededLimit(measureDocument(schema, parse(copies), undefined, DEFAULTS), DEFAULTS)).toBe('merges');
    // Twenty under twenty, within the cost limit: 400 authors merged under one post.
    const nested = `{ ${`post(id: 1) { ${'author { id } '.repeat(20)} } `.repeat(20)} }`;
    expect(measure(nested)).toMatchObject({ cost: 20 * (1 + 20 * 2), merges: 190 + 2 * ((400 * 399) / 2) });
    expect(exceededLimit(measureDocument(schema, parse(nested), undefined, DEFAULTS), DEFAULTS)).toBe('merges');
  });

  it('refuses selection sets of any kind nested far deeper than the depth limit', () => {
    const nested = `{ ${'... { '.repeat(250)} posts(first: 1) { id } ${'} '.repeat(250)} }`;
    expect(measure(nested).depth).toBe(2);
    expect(exceededLimit(measureDocument(schema, parse(nested), undefined, DEFAULTS), DEFAULTS)).toBe('depth');
  });

  it('counts a variable first at its value, or at 1 before the variables are known', () => {
    const query = 'query($n: Int) { posts(first: $n) { id } }';
    expect(measure(query, { n: 7 }).cost).toBe(8);
    expect(measure(query).cost).toBe(2);
    expect(measure(query, {}).cost).toBe(51);
    expect(measure('query($n: Int = 7) { posts(first: $n) { id } }', {}).cost).toBe(8);
  });

  it('names the first limit exceeded', () => {
    const limits = { maxDepth: 3, maxAliases: 1, maxCost: 100 };
    expect(exceededLimit({ depth: 3, aliases: 1, cost: 100, merges: 5000 }, limits)).toBeNull();
    expect(exceededLimit({ depth: 4, aliases: 0, cost: 0, merges: 0 }, limits)).toBe('depth');
    expect(exceededLimit({ depth: 1, aliases: 2, cost: 0, merges: 0 }, limits)).toBe('aliases');
    expect(exceededLimit({ depth: 1, aliases: 0, cost: 101, merges: 0 }, limits)).toBe('cost');
    expect(exceededLimit({ depth: 1, aliases: 0, cost: 1, merges: 5001 }, limits)).toBe('merges');
    expect(exceededLimit({ depth: 1, aliases: 0, cost: 1, merges: 11 }, { ...limits, maxMerges: 10 })).toBe('merges');
  });
});
