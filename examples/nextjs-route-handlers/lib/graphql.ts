/**
 * The documents as a GraphQL API, served by Gatehouse's GraphQL endpoint (its `@authorize` rules
 * and document limits) from the route at `/graphql`: a person's own documents for any signed-in
 * caller, every document for an editor.
 */
import { authorizeDirective, type GraphQLContext } from 'gatehouse-auth/graphql';
import { auth } from './auth.ts';
import { allDocuments } from './documents.ts';

const typeDefs = [
  authorizeDirective,
  `
  type Document { id: ID!  title: String! }
  type Query {
    myDocuments: [Document!] @authorize
    allDocuments: [Document!] @authorize(policy: "Editors")
  }
`,
];

export const graphql = await auth.graphql({
  typeDefs,
  resolvers: {
    Query: {
      myDocuments: (_root: unknown, _args: unknown, { user }: GraphQLContext) => allDocuments().filter((document) => document.authorId === user.subject),
      allDocuments: () => allDocuments(),
    },
  },
});
