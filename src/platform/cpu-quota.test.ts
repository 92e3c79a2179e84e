import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuQuota, parseCfsQuota, parseCpuMax, usableCores } from './cpu-quota.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A cgroup mount point of its own, with `files` (path → text) under it. */
function cgroupRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'cgroup-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('parsing the quota files', () => {
  it('reads cgroup v2 cpu.max as cores, "max" as no quota', () => {
    expect(parseCpuMax('150000 100000\n')).toBe(1.5);
    expect(parseCpuMax('50000 100000')).toBe(0.5);
    expect(parseCpuMax('max 100000\n')).toBeUndefined();
    expect(parseCpuMax('')).toBeUndefined();
    expect(parseCpuMax('garbage')).toBeUndefined();
  });

  it('reads cgroup v1 cfs quota and period, -1 as no quota', () => {
    expect(parseCfsQuota('200000\n', '100000\n')).toBe(2);
    expect(parseCfsQuota('-1\n', '100000\n')).toBeUndefined();
    expect(parseCfsQuota('100000', '0')).toBeUndefined();
  });
});

describe('the quota of the process’s cgroup', () => {
  it('is the mount point’s cpu.max in a container (cgroup v2, own cgroup "/")', () => {
    const root = cgroupRoot({ 'cpu.max': '100000 100000\n' });
    expect(cpuQuota({ root, selfCgroup: '0::/\n' })).toBe(1);
    expect(usableCores({ root, selfCgroup: '0::/\n' }, 8)).toBe(1);
  });

  it('is the tightest limit from the process’s own cgroup up to the mount point (cgroup v2)', () => {
    const root = cgroupRoot({
      'system.slice/cpu.max': '250000 100000\n',
      'system.slice/gatehouse.service/cpu.max': 'max 100000\n',
    });
    const files = { root, selfCgroup: '0::/system.slice/gatehouse.service\n' };
    expect(cpuQuota(files)).toBe(2.5);
    expect(usableCores(files, 8)).toBe(3);
    expect(usableCores(files, 2)).toBe(2);
  });

  it('reads cgroup v1’s cpu controller, mounted alone or with cpuacct', () => {
    const alone = cgroupRoot({ 'cpu/docker/abc/cpu.cfs_quota_us': '150000\n', 'cpu/docker/abc/cpu.cfs_period_us': '100000\n', 'cpu/cpu.cfs_quota_us': '-1\n', 'cpu/cpu.cfs_period_us': '100000\n' });
    expect(cpuQuota({ root: alone, selfCgroup: '4:memory:/docker/abc\n3:cpu:/docker/abc\n0::/\n' })).toBe(1.5);
    const together = cgroupRoot({ 'cpu,cpuacct/cpu.cfs_quota_us': '300000\n', 'cpu,cpuacct/cpu.cfs_period_us': '100000\n' });
    expect(cpuQuota({ root: together, selfCgroup: '2:cpu,cpuacct:/\n' })).toBe(3);
  });

  it('is none without files, with unlimited ones, or with a quota under a core still leaves one thread', () => {
    expect(cpuQuota({ root: cgroupRoot({}), selfCgroup: '' })).toBeUndefined();
    const unlimited = cgroupRoot({ 'cpu.max': 'max 100000\n', 'cpu/cpu.cfs_quota_us': '-1\n', 'cpu/cpu.cfs_period_us': '100000\n' });
    expect(cpuQuota({ root: unlimited, selfCgroup: '1:cpu:/\n0::/\n' })).toBeUndefined();
    expect(usableCores({ root: unlimited, selfCgroup: '0::/\n' }, 4)).toBe(4);
    const small = cgroupRoot({ 'cpu.max': '20000 100000\n' });
    expect(usableCores({ root: small, selfCgroup: '0::/\n' }, 4)).toBe(1);
  });

  it('does not leave the mount point for a path that climbs out of it', () => {
    const root = cgroupRoot({ 'inner/cpu.max': '100000 100000\n' });
    expect(cpuQuota({ root: join(root, 'inner'), selfCgroup: '0::/../..\n' })).toBe(1);
  });
});
