// The Gatehouse peer of bench/README.md's GraphQL comparison, written as docs/guide.md shows: the
// plugin with bearer tokens of an external issuer that shares an HS256 secret (`externalJwtBearer`),
// the features such an API does not use turned off, a private in-memory store, and the schema with
// `gatehouseGraphQL`, every `Query` field under `@authorize` (a valid token, or no data). Imports
// only the package's public entry points.
import Fastify from 'fastify';
import { externalJwtBearer } from 'gatehouse-auth';
import { configFromSettings, gatehouse, serverOptions } from 'gatehouse-auth/fastify';
import { authorizeDirective, type GraphQLContext, type GraphQLResolvers, gatehouseGraphQL } from 'gatehouse-auth/graphql';
import { listen, POST_TYPES, POSTS, tokenSettingsFromEnv } from './peer-posts.ts';

const { secret, issuer, audience } = tokenSettingsFromEnv();
const settings = { databaseUrl: 'sqlite::memory:' };

export const app = Fastify(serverOptions(configFromSettings(settings)));
await app.register(gatehouse, {
  settings,
  features: { cookies: false, tokens: false, apiKeys: false, externalLogins: false, admin: false, twoFactor: false },
  schemes: [externalJwtBearer({ secret, issuer, audience })],
});
app.get('/health', { config: { authorization: { allowAnonymous: true } } }, async () => ({ status: 'ok' }));

const resolvers: GraphQLResolvers<GraphQLContext> = {
  Query: {
    me: (_root, _args, { user }) => ({ id: user.subject, name: user.name }),
    posts: () => POSTS,
  },
};
await app.register(gatehouseGraphQL, {
  typeDefs: [authorizeDirective, `${POST_TYPES}
    type Query @authorize { me: User! posts: [Post!]! }
  `],
  resolvers,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}

await app.listen(listen);
