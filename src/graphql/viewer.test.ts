import { buildSchema, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { authorizeDirective } from './authorize-directive.ts';
import { isViewerIndependent } from './viewer.ts';

const schema = buildSchema(`${authorizeDirective}
  type Post { id: ID!  title: String!  author: User! }
  type User { id: ID!  userName: String  email: String @authorize(policy: "SelfOrAdmin")  posts: [Post!]! }
  type Secret @authorize(roles: ["Admin"]) { id: ID! }
  type Query { posts: [Post!]!  me: User  secret: Secret }
  type Subscription { postCreated: Post! }
`);
const independent = (query: string) => isViewerIndependent(schema, parse(query));

describe('isViewerIndependent', () => {
  it('holds for documents that read only fields under no rule', () => {
    expect(independent('subscription { postCreated { id title author { id userName posts { id } } } }')).toBe(true);
    expect(independent('{ posts { id } }')).toBe(true);
  });

  it('fails for a field under a rule, also through a fragment, and for a type under one', () => {
    expect(independent('subscription { postCreated { author { email } } }')).toBe(false);
    expect(independent('subscription { postCreated { author { ...U } } } fragment U on User { email }')).toBe(false);
    expect(independent('{ secret { id } }')).toBe(false);
  });

  it('reads the rule of a graphql-js schema from the field extension', () => {
    const query = new GraphQLObjectType({
      name: 'Query',
      fields: { open: { type: GraphQLString }, guarded: { type: GraphQLString, extensions: { authorize: { roles: ['Admin'] } } } },
    });
    const built = new GraphQLSchema({ query });
    expect(isViewerIndependent(built, parse('{ open }'))).toBe(true);
    expect(isViewerIndependent(built, parse('{ open guarded }'))).toBe(false);
  });
});
