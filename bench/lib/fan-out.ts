import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runToCompletion } from './processes.ts';

export interface FanOutSettings {
  readonly root: string;
  readonly baseUrl: string;
  readonly accessToken: string;
  readonly serverPid: number;
  readonly loadGeneratorCpu: number | null;
  /** Seconds of events before the measured ones, not counted (the bench's warm-up). */
  readonly warmupSeconds: number;
}

/** The warm-up's own figures: what the first events after a start cost, kept for the record. */
export interface FanOutWarmUp {
  readonly events: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface FanOutResult {
  readonly subscribers: number;
  readonly events: number;
  readonly delivered: number;
  readonly expected: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The service's peak resident memory during the fan-out, warm-up included (VmHWM, reset before it). */
  readonly peakRssMiB: number | null;
  readonly warmUp: FanOutWarmUp | null;
}

const SUBSCRIBERS = 1000;
const EVENTS = 100;
const INTERVAL_MS = 20;

/**
 * Subscription fan-out as bench/README.md defines it: 1,000 subscribers, 100 `createPost` events
 * one every 20 ms, latency from a mutation's sending until its last subscriber has it. The peak
 * RSS of the service is read from /proc after resetting it (Linux), so earlier scenarios do not
 * count. The warm-up sends events the same way for `warmupSeconds` first; they are not counted.
 */
export async function measureFanOut(settings: FanOutSettings): Promise<FanOutResult> {
  const peakReset = await resetPeakRss(settings.serverPid);
  const { stdout } = await runToCompletion('fan-out client', process.execPath, ['--import', 'tsx', join(settings.root, 'bench/fan-out-client.ts')], {
    env: {
      ...process.env,
      BASE_URL: settings.baseUrl,
      ACCESS_TOKEN: settings.accessToken,
      SUBSCRIBERS: String(SUBSCRIBERS),
      EVENTS: String(EVENTS),
      INTERVAL_MS: String(INTERVAL_MS),
      WARMUP_EVENTS: String(Math.round((settings.warmupSeconds * 1000) / INTERVAL_MS)),
    },
    cwd: settings.root,
    cpu: settings.loadGeneratorCpu,
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  const measured = JSON.parse(line) as {
    delivered: number;
    expected: number;
    p50Ms: number;
    p99Ms: number;
    warmUp: { expected: number; p50Ms: number; p99Ms: number } | null;
  };
  return {
    subscribers: SUBSCRIBERS,
    events: EVENTS,
    delivered: measured.delivered,
    expected: measured.expected,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    peakRssMiB: peakReset ? await peakRssMiB(settings.serverPid) : null,
    warmUp: measured.warmUp && { events: measured.warmUp.expected / SUBSCRIBERS, p50Ms: measured.warmUp.p50Ms, p99Ms: measured.warmUp.p99Ms },
  };
}

/** Linux: writing 5 to clear_refs resets the process's peak RSS (VmHWM). */
async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function peakRssMiB(pid: number): Promise<number | null> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : null;
}
