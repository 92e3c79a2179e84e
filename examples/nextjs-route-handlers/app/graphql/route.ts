/** `/graphql`: the documents' GraphQL API (lib/graphql.ts), queries over GET and POST. */
import { graphql } from '../../lib/graphql.ts';

export const GET = graphql.fetch;
export const POST = graphql.fetch;
