import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// How much CPU the rest of the machine took while a scenario was measured: the bench's own
// processes (servers, load generator, orchestrator) are subtracted from the whole machine's busy
// time. Linux only (/proc); elsewhere every function answers null. A high figure means the numbers
// of that scenario were taken on a shared machine and are low and noisy.

const ticksPerSecond = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(result.stdout?.trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

export interface CpuSnapshot {
  readonly atNs: bigint;
  /** Busy ticks of the whole machine, all cores (steal included: a noisy neighbour is contention too). */
  readonly machineBusy: number;
  /** Ticks of the given processes, plus this process and its waited-for children (the finished load generator). */
  readonly ours: number;
}

/** A snapshot, or `null` where /proc cannot be read. `pids` are the long-running servers. */
export function cpuSnapshot(pids: readonly number[]): CpuSnapshot | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((candidate) => candidate.startsWith('cpu '));
    if (line === undefined) return null;
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
    let ours = processTicks('self', true);
    for (const pid of pids) ours += processTicks(String(pid), false);
    return { atNs: process.hrtime.bigint(), machineBusy: user + nice + system + irq + softirq + steal, ours };
  } catch {
    return null;
  }
}

/** utime + stime (+ cutime + cstime) of `/proc/<pid>/stat`; 0 for a process that is gone. */
function processTicks(pid: string, withChildren: boolean): number {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the command name (which may hold spaces) start at field 3, `state`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ').map(Number);
  const [utime = 0, stime = 0, cutime = 0, cstime = 0] = fields.slice(11, 15);
  return utime + stime + (withChildren ? cutime + cstime : 0);
}

/** Average CPU other processes used between two snapshots, in percent of one core; `null` if unknown. */
export function otherCpuPercent(before: CpuSnapshot | null, after: CpuSnapshot | null): number | null {
  if (before === null || after === null) return null;
  const seconds = Number(after.atNs - before.atNs) / 1e9;
  if (seconds <= 0) return null;
  const otherTicks = after.machineBusy - before.machineBusy - (after.ours - before.ours);
  return Math.max(0, (otherTicks / ticksPerSecond / seconds) * 100);
}

/** CPU seconds (user + system, every thread) a process has used so far; `null` where /proc cannot be read. */
export function processCpuSeconds(pid: number): number | null {
  try {
    readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return processTicks(String(pid), false) / ticksPerSecond;
}
