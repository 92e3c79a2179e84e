// What both GraphQL peer servers serve (bench/README.md, "GraphQL against its peers"): twenty posts
// in memory, and the caller as the token's claims say. The token's secret, issuer and audience
// come from the environment (bench/lib/peers.ts), so that both verify the same token alike.

export interface Post {
  readonly id: string;
  readonly title: string;
  readonly author: string;
}

export const POSTS: readonly Post[] = Array.from({ length: 20 }, (_, i) => ({
  id: String(i + 1),
  title: `Post number ${i + 1}`,
  author: `author-${(i % 5) + 1}`,
}));

/** The schema's types, in SDL; each server writes its own `Query` (the Gatehouse one with `@authorize`). */
export const POST_TYPES = `
  type User { id: ID! name: String }
  type Post { id: ID! title: String! author: String! }
`;

export interface TokenSettings {
  /** The HS256 secret shared with the token's issuer. */
  readonly secret: string;
  readonly issuer: string;
  readonly audience: string;
}

export function tokenSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TokenSettings {
  const { BENCH_JWT_SECRET: secret, BENCH_JWT_ISSUER: issuer, BENCH_JWT_AUDIENCE: audience } = env;
  if (!secret || !issuer || !audience) throw new Error('BENCH_JWT_SECRET, BENCH_JWT_ISSUER and BENCH_JWT_AUDIENCE must be set');
  return { secret, issuer, audience };
}

export const listen = {
  port: Number(process.env.PORT ?? 3003),
  host: process.env.HOST ?? '127.0.0.1',
};
