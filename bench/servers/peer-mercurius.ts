// The mercurius peer of bench/README.md's GraphQL comparison, written as a mercurius user would:
// Fastify, mercurius with graphql-jit (`jit: 1`: a query is compiled the second time it is seen),
// and an HS256 bearer token verified on every request with fast-jwt (signature, `alg`, `exp`,
// `nbf`, `iss`, `aud`), which is what @fastify/jwt does underneath. No token or a bad one: 401.
import { createVerifier } from 'fast-jwt';
import Fastify, { type FastifyRequest } from 'fastify';
import mercurius, { type IResolvers } from 'mercurius';
import { listen, POST_TYPES, POSTS, tokenSettingsFromEnv } from './peer-posts.ts';

interface Claims {
  readonly sub: string;
  readonly name?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    claims: Claims;
  }
}

declare module 'mercurius' {
  interface MercuriusContext {
    claims: Claims;
  }
}

const { secret, issuer, audience } = tokenSettingsFromEnv();
const verify = createVerifier({
  key: secret,
  algorithms: ['HS256'],
  allowedIss: issuer,
  allowedAud: audience,
  requiredClaims: ['exp', 'sub'],
  clockTolerance: 30_000,
});

const schema = `${POST_TYPES}
  type Query { me: User! posts: [Post!]! }
`;

const resolvers: IResolvers = {
  Query: {
    me: (_root, _args, { claims }) => ({ id: claims.sub, name: claims.name ?? null }),
    posts: () => POSTS,
  },
};

export const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));

await app.register(async (api) => {
  api.decorateRequest('claims', null as unknown as Claims);
  api.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) return reply.code(401).send({ error: 'Unauthorized' });
    try {
      request.claims = verify(header.slice(7)) as Claims;
    } catch {
      return reply.code(401).send({ error: 'Unauthorized' });
    }
  });
  await api.register(mercurius, {
    schema,
    resolvers,
    jit: 1,
    context: (request: FastifyRequest) => ({ claims: request.claims }),
  });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}

await app.listen(listen);
