import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus } from 'node:os';

/** Where the servers and the load generator run; `null` cores when pinning is off. */
export interface Pinning {
  readonly enabled: boolean;
  readonly serverCpu: number | null;
  readonly loadGeneratorCpu: number | null;
  /** Why pinning is off, printed and recorded; `null` when it is on. */
  readonly note: string | null;
}

/**
 * Decides the pinning of bench/README.md: servers on `serverCpu`, load generator on
 * `loadGeneratorCpu`, through `taskset`. Falls back to no pinning, with a note, when `taskset` is
 * missing, when the two cores are the same, or when either core cannot be used.
 */
export function planPinning(serverCpu: number, loadGeneratorCpu: number): Pinning {
  const off = (note: string): Pinning => ({ enabled: false, serverCpu: null, loadGeneratorCpu: null, note });
  if (process.platform !== 'linux') return off(`pinning off: taskset is Linux-only (platform ${process.platform})`);
  if (serverCpu === loadGeneratorCpu) return off(`pinning off: server and load generator would share core ${serverCpu}`);
  const probe = spawnSync('taskset', ['--version'], { stdio: 'ignore' });
  if (probe.error !== undefined) return off('pinning off: `taskset` not found (install util-linux); servers and load generator share all cores');
  for (const cpu of [serverCpu, loadGeneratorCpu]) {
    const check = spawnSync('taskset', ['-c', String(cpu), process.execPath, '-e', '0'], { stdio: 'ignore' });
    if (check.status !== 0) {
      return off(`pinning off: cannot run on core ${cpu} (${cpus().length} cores, ${availableParallelism()} available to this process)`);
    }
  }
  return { enabled: true, serverCpu, loadGeneratorCpu, note: null };
}

/** `command args…` prefixed with `taskset -c <cpu>` when `cpu` is set; `taskset` execs, so the pid stays the command's. */
export function pinned(cpu: number | null, command: string, args: readonly string[]): { command: string; args: string[] } {
  if (cpu === null) return { command, args: [...args] };
  return { command: 'taskset', args: ['-c', String(cpu), command, ...args] };
}
