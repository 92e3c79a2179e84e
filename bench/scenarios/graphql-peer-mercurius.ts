import type { Scenario } from '../lib/scenario.ts';
import { PEER_QUERY } from './graphql-peer-gatehouse.ts';

/** bench/README.md, "GraphQL against its peers": mercurius with graphql-jit, the same request as `graphql-peer-gatehouse`. */
export default {
  name: 'graphql-peer-mercurius',
  description: 'mercurius + graphql-jit `POST /graphql` `{ me … posts … }`, HS256 bearer token, 20 posts in memory',
  target: 'peer-mercurius',
  method: 'POST',
  path: '/graphql',
  headers: { authorization: 'Bearer {peerToken}', 'content-type': 'application/json' },
  body: PEER_QUERY,
} satisfies Scenario;
