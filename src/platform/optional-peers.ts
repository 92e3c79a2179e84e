import { createRequire } from 'node:module';

/**
 * Drivers that only some applications need (pg, better-sqlite3, ioredis, nodemailer,
 * openid-client, GraphiQL's page) are optional peer dependencies: installed by the application
 * that uses them, loaded when a setting asks for them. Without the package, the setting fails
 * once, at start, with this error naming what to install, not with a module-resolution trace
 * from deep inside the library.
 */
export class MissingPeerError extends Error {
  constructor(
    readonly packageName: string,
    neededFor: string,
    options?: ErrorOptions,
  ) {
    super(`${neededFor} needs the package ${packageName}, which is not installed: npm install ${packageName}@${JSON.stringify(peerRange(packageName))}`, options);
    this.name = 'MissingPeerError';
  }
}

const require = createRequire(import.meta.url);

/** The range this package was tested with, from its own manifest (found from src/ and from dist/). */
function peerRange(packageName: string): string {
  const manifest = require('gatehouse-auth/package.json') as { peerDependencies?: Record<string, string> };
  return manifest.peerDependencies?.[packageName] ?? 'latest';
}

/**
 * Whether `error` says that `packageName` itself cannot be found: a package that is there but
 * misses one of its own dependencies is a broken install, reported as it is.
 */
function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const name = packageName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return typeof message === 'string' && new RegExp(`Cannot find (package|module) '${name}(/[^']*)?'`).test(message);
}

/** `load` (an `import()` of the package, written where its types are known), or MissingPeerError. */
export async function importPeer<T>(packageName: string, neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw isMissing(error, packageName) ? new MissingPeerError(packageName, neededFor, { cause: error }) : error;
  }
}

/** A CommonJS peer loaded synchronously, or MissingPeerError. */
export function requirePeer<T>(packageName: string, neededFor: string): T {
  try {
    return require(packageName) as T;
  } catch (error) {
    throw isMissing(error, packageName) ? new MissingPeerError(packageName, neededFor, { cause: error }) : error;
  }
}

/**
 * Fails now, with MissingPeerError, when a peer that is loaded later (with its first use, to keep
 * its memory off a service that never uses it) is not installed. Resolves without loading it;
 * a package found but exporting nothing to `require` (ESM only) is there all the same.
 */
export function assertPeerInstalled(packageName: string, neededFor: string): void {
  try {
    require.resolve(packageName);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return;
    throw isMissing(error, packageName) ? new MissingPeerError(packageName, neededFor, { cause: error }) : error;
  }
}
