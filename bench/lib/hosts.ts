/**
 * The reference service on its other hosts (bench/README.md, "On every host"): each runs as
 * `FRAMEWORK=<host> npm start` and is measured against its framework's own bare route, started
 * beside it on the same core.
 */
export const HOSTS = {
  'gatehouse-express': { framework: 'express', bare: 'bare-express', bareServer: 'servers/bare-express.ts' },
  'gatehouse-hono': { framework: 'hono', bare: 'bare-hono', bareServer: 'servers/bare-hono.ts' },
} as const;

export type HostTarget = keyof typeof HOSTS;
export type HostBareTarget = (typeof HOSTS)[HostTarget]['bare'];

export function isHostTarget(target: string): target is HostTarget {
  return Object.hasOwn(HOSTS, target);
}

export function isHostBareTarget(target: string): target is HostBareTarget {
  return Object.values(HOSTS).some((host) => host.bare === target);
}

/** The file of a framework's bare server. */
export function bareServerOf(target: HostBareTarget): string {
  return Object.values(HOSTS).find((host) => host.bare === target)!.bareServer;
}
