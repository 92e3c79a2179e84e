import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort } from './gatehouse.ts';
import { type Server, startServer } from './processes.ts';

/** The GraphQL peer servers (bench/README.md, "GraphQL against its peers"), by scenario target. */
export const PEER_SERVERS = {
  'peer-mercurius': 'servers/peer-mercurius.ts',
  'peer-gatehouse': 'servers/peer-gatehouse.ts',
} as const;

export type PeerTarget = keyof typeof PEER_SERVERS;

export function isPeerTarget(target: string): target is PeerTarget {
  return Object.hasOwn(PEER_SERVERS, target);
}

/** The issuer both peers trust: an HS256 secret, an `iss` and an `aud`, passed to them in the environment. */
export interface PeerIssuer {
  readonly env: Readonly<Record<string, string>>;
  /** A token of that issuer for one user (`sub`, `name`), valid for a day: the same on every request. */
  readonly token: string;
}

export async function peerIssuer(): Promise<PeerIssuer> {
  const secret = randomBytes(32).toString('base64url');
  const issuer = 'https://issuer.bench.test';
  const audience = 'posts-api';
  return {
    env: { BENCH_JWT_SECRET: secret, BENCH_JWT_ISSUER: issuer, BENCH_JWT_AUDIENCE: audience },
    token: await signPeerToken({ secret, issuer, audience }, 'user-42', 'Ada Lovelace'),
  };
}

/** An HS256 access token as an external issuer would sign it. */
export async function signPeerToken(
  { secret, issuer, audience }: { secret: string; issuer: string; audience: string },
  subject: string,
  name: string,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ name })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 24 * 3600)
    .sign(new TextEncoder().encode(secret));
}

export interface PeerStart {
  readonly root: string;
  readonly host: string;
  readonly cpu: number | null;
  readonly issuer: PeerIssuer;
}

/** Starts one peer server, pinned like the others, with plain `node --import tsx` (the same for every peer). */
export async function startPeer(target: PeerTarget, { root, host, cpu, issuer }: PeerStart): Promise<{ server: Server; baseUrl: string }> {
  const port = await freePort(host);
  const server = await startServer({
    name: target,
    command: process.execPath,
    args: ['--import', 'tsx', join(root, 'bench', PEER_SERVERS[target])],
    env: { ...process.env, ...issuer.env, HOST: host, PORT: String(port), NODE_ENV: 'development' },
    cwd: root,
    cpu,
    readyUrl: `http://${host}:${port}/health`,
    timeoutMs: 60_000,
  });
  return { server, baseUrl: `http://${host}:${port}` };
}
