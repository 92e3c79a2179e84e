import type { Scenario } from '../lib/scenario.ts';

/** The caller (`me`, from the token's claims) and the twenty posts: a result that depends on who asks. */
export const PEER_QUERY = JSON.stringify({ query: '{ me { id name } posts { id title author } }' });

/** bench/README.md, "GraphQL against its peers": an application on the library, the same request as `graphql-peer-mercurius`. */
export default {
  name: 'graphql-peer-gatehouse',
  description: 'application on gatehouse-auth `POST /graphql` `{ me … posts … }`, HS256 bearer token, 20 posts in memory',
  target: 'peer-gatehouse',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {peerToken}', 'content-type': 'application/json' },
  body: PEER_QUERY,
} satisfies Scenario;
