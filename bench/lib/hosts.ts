/**
 * The reference service on its other hosts (bench/README.md, "On every host"): each runs as
 * `FRAMEWORK=<host> npm start` and is measured against its framework's own bare route, started
 * beside it on the same core.
 */
export const HOSTS = {
  'gatehouse-express': { framework: 'express', bare: 'bare-express', bareServer: 'servers/bare-express.ts', bareEnv: {} },
  'gatehouse-hono': { framework: 'hono', bare: 'bare-hono', bareServer: 'servers/bare-hono.ts', bareEnv: {} },
  'gatehouse-nestjs': { framework: 'nestjs', bare: 'bare-nestjs', bareServer: 'servers/bare-nestjs.ts', bareEnv: {} },
  'gatehouse-nestjs-fastify': { framework: 'nestjs-fastify', bare: 'bare-nestjs-fastify', bareServer: 'servers/bare-nestjs.ts', bareEnv: { BENCH_NEST_PLATFORM: 'fastify' } },
} as const;

export type HostTarget = keyof typeof HOSTS;
export type HostBareTarget = (typeof HOSTS)[HostTarget]['bare'];

export function isHostTarget(target: string): target is HostTarget {
  return Object.hasOwn(HOSTS, target);
}

export function isHostBareTarget(target: string): target is HostBareTarget {
  return Object.values(HOSTS).some((host) => host.bare === target);
}

/** The file of a framework's bare server, and what its environment adds (the platform). */
export function bareServerOf(target: HostBareTarget): { readonly file: string; readonly env: Readonly<Record<string, string>> } {
  const host = Object.values(HOSTS).find((candidate) => candidate.bare === target)!;
  return { file: host.bareServer, env: host.bareEnv };
}
