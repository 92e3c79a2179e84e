import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { runToCompletion } from './processes.ts';

/** The service as it was at another commit, built to be measured beside the working tree's (`BENCH_BEFORE`). */
export interface Revision {
  /** What `BENCH_BEFORE` said: a commit, a tag, `main~3`. */
  readonly ref: string;
  /** The full commit it names. */
  readonly commit: string;
  /** Where it was unpacked and built; its `dist/` and `bin/` are run like the working tree's. */
  readonly root: string;
}

/**
 * Unpacks `ref`'s tree (`git archive`: the committed files only, nothing of the working tree)
 * into `directory` and builds it. Its dependencies are the working tree's own, linked, when the
 * two lock files agree, so that a change of code is measured and not a change of library;
 * otherwise `npm ci` installs the revision's.
 */
export async function buildRevision(root: string, ref: string, directory: string, log: (message: string) => void): Promise<Revision> {
  const environment = { env: process.env, cwd: root };
  const { stdout } = await runToCompletion('git rev-parse', 'git', ['rev-parse', '--verify', `${ref}^{commit}`], environment);
  const commit = stdout.trim();
  await mkdir(directory, { recursive: true });
  const archive = join(directory, '..', `${commit}.tar`);
  await runToCompletion('git archive', 'git', ['archive', '--format=tar', `--output=${archive}`, commit], environment);
  await runToCompletion('tar', 'tar', ['-xf', archive, '-C', directory], environment);
  const at = { env: process.env, cwd: directory };
  if (await sameFile(join(root, 'package-lock.json'), join(directory, 'package-lock.json'))) {
    await symlink(join(root, 'node_modules'), join(directory, 'node_modules'), 'dir');
  } else {
    log(`before (${ref}): its package-lock.json differs, installing its dependencies…`);
    await runToCompletion('npm ci (before)', 'npm', ['ci', '--no-audit', '--no-fund'], at);
  }
  log(`before (${ref} = ${commit.slice(0, 10)}): building…`);
  await runToCompletion('npm run build (before)', 'npm', ['run', 'build'], at);
  return { ref, commit, root: directory };
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [left, right] = await Promise.all([readFile(a), readFile(b).catch(() => null)]);
  return right !== null && left.equals(right);
}
