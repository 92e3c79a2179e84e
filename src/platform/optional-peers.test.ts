import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertPeerInstalled, importPeer, MissingPeerError, requirePeer } from './optional-peers.ts';

const ABSENT = 'gatehouse-no-such-driver';

/** A package that is installed but lacks a dependency of its own: a broken install, not a missing peer. */
const brokenRoot = mkdtempSync(join(tmpdir(), 'gatehouse-peer-'));
const brokenEntry = join(brokenRoot, 'node_modules', 'half-installed', 'index.js');
mkdirSync(join(brokenRoot, 'node_modules', 'half-installed'), { recursive: true });
writeFileSync(join(brokenRoot, 'node_modules', 'half-installed', 'package.json'), JSON.stringify({ name: 'half-installed', main: 'index.js' }));
writeFileSync(brokenEntry, `require('${ABSENT}');\n`);
afterAll(() => rmSync(brokenRoot, { recursive: true, force: true }));

describe('optional peer dependencies', () => {
  it('loads an installed peer, synchronously or by import()', async () => {
    expect(requirePeer<typeof import('ioredis')>('ioredis', 'A Redis URL').Redis).toBeTypeOf('function');
    const pg = await importPeer('pg', 'A postgres:// database URL', () => import('pg'));
    expect(pg.default.Pool).toBeTypeOf('function');
  });

  it('names the missing package, what needed it and the command that installs it', () => {
    const error = catchError(() => requirePeer(ABSENT, 'A Redis URL (REDIS_URL)'));
    expect(error).toBeInstanceOf(MissingPeerError);
    expect((error as MissingPeerError).packageName).toBe(ABSENT);
    expect((error as Error).message).toBe(`A Redis URL (REDIS_URL) needs the package ${ABSENT}, which is not installed: npm install ${ABSENT}@"latest"`);
  });

  it("takes the version range from the package's own peerDependencies", () => {
    const error = catchError(() => {
      throw new MissingPeerError('react', 'The GraphiQL page');
    });
    expect((error as Error).message).toMatch(/npm install react@"18\.3\.1"$/);
  });

  it('lets through the error of a peer that is there but broken (one of its own dependencies missing)', () => {
    const error = catchError(() => requirePeer(brokenEntry, 'X'));
    expect(error).not.toBeInstanceOf(MissingPeerError);
    expect((error as Error).message).toContain(`Cannot find module '${ABSENT}'`);
  });

  it('checks that a peer loaded later is installed without loading it, ESM-only packages included', () => {
    expect(() => assertPeerInstalled('openid-client', 'External sign-in')).not.toThrow();
    expect(() => assertPeerInstalled('nodemailer', 'Mail over SMTP')).not.toThrow();
    expect(() => assertPeerInstalled(ABSENT, 'Mail over SMTP (SMTP_URL)')).toThrow(MissingPeerError);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

