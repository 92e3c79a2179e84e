import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

/**
 * The CPU quota of the process's cgroup, in cores (1.5 for "150000 100000"), or undefined when
 * there is none. A container limited to one core still sees every core of the host in
 * `availableParallelism()`, which counts the cores the process may run on, not how much of them
 * it may use: hashing threads sized by it would only take turns at the quota and hold their
 * memory meanwhile.
 */
export function cpuQuota(files: CgroupFiles = systemCgroupFiles()): number | undefined {
  const quotas = [...cgroupV2Quotas(files), ...cgroupV1Quotas(files)];
  return quotas.length === 0 ? undefined : Math.min(...quotas);
}

/** The cores the process may use and has the quota for: at least one. */
export function usableCores(files: CgroupFiles = systemCgroupFiles(), cores = availableParallelism()): number {
  const quota = cpuQuota(files);
  return Math.max(1, quota === undefined ? cores : Math.min(cores, Math.ceil(quota)));
}

/** Where the cgroup files are read from: the machine's by default, a directory of test files otherwise. */
export interface CgroupFiles {
  /** The cgroup file system's mount point (`/sys/fs/cgroup`). */
  readonly root: string;
  /** The text of `/proc/self/cgroup`: the process's cgroup in each hierarchy. */
  readonly selfCgroup: string;
}

function systemCgroupFiles(): CgroupFiles {
  return { root: '/sys/fs/cgroup', selfCgroup: readText('/proc/self/cgroup') ?? '' };
}

/** cgroup v2: `cpu.max` holds "<quota> <period>" or "max <period>". */
export function parseCpuMax(text: string): number | undefined {
  const [quota, period] = text.trim().split(/\s+/);
  return coresOf(quota, period);
}

/** cgroup v1: `cpu.cfs_quota_us` is -1 when unlimited. */
export function parseCfsQuota(quotaText: string, periodText: string): number | undefined {
  return coresOf(quotaText.trim(), periodText.trim());
}

function coresOf(quota: string | undefined, period: string | undefined): number | undefined {
  if (quota === undefined || period === undefined || !/^\d+$/.test(quota) || !/^\d+$/.test(period)) return undefined;
  const [q, p] = [Number(quota), Number(period)];
  return q > 0 && p > 0 ? q / p : undefined;
}

/**
 * A limit set on any cgroup above the process's own binds it too, so every level from its own up
 * to the mount point is read. Inside a container the mount point usually is the container's
 * cgroup, and `/proc/self/cgroup` names `/`.
 */
function cgroupV2Quotas(files: CgroupFiles): number[] {
  const path = /^0::(\/.*)$/m.exec(files.selfCgroup)?.[1] ?? '/';
  return levels(files.root, path).flatMap((dir) => {
    const text = readText(join(dir, 'cpu.max'));
    const cores = text === undefined ? undefined : parseCpuMax(text);
    return cores === undefined ? [] : [cores];
  });
}

/** cgroup v1: the `cpu` controller's hierarchy, mounted as `cpu` or `cpu,cpuacct`. */
function cgroupV1Quotas(files: CgroupFiles): number[] {
  const path = /^\d+:([^:]*\bcpu\b[^:]*):(\/.*)$/m.exec(files.selfCgroup)?.[2] ?? '/';
  for (const mount of ['cpu', 'cpu,cpuacct', 'cpuacct,cpu']) {
    const base = join(files.root, mount);
    const quotas = levels(base, path).flatMap((dir) => {
      const quota = readText(join(dir, 'cpu.cfs_quota_us'));
      const period = readText(join(dir, 'cpu.cfs_period_us'));
      const cores = quota === undefined || period === undefined ? undefined : parseCfsQuota(quota, period);
      return cores === undefined ? [] : [cores];
    });
    if (quotas.length > 0) return quotas;
  }
  return [];
}

/** `base` joined with `path` and with each of its parents, up to `base` itself. */
function levels(base: string, path: string): string[] {
  const parts = path.split('/').filter((part) => part !== '' && part !== '..');
  return parts.map((_, end) => join(base, ...parts.slice(0, parts.length - end))).concat(base);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
