import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { medianIndex, percentile } from './percentile.ts';
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

/** One run of the fan-out: new sockets, then its events. */
export interface FanOutRound {
  readonly delivered: number;
  readonly expected: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The service's peak resident memory during the round, warm-up included (VmHWM, reset before it). */
  readonly peakRssMiB: number | null;
  /** The service's CPU time per measured event, ms (its mutation and its deliveries); null off Linux. */
  readonly serverCpuMsPerEvent: number | null;
  /** Every event's latency, fastest first; null for an event not fully delivered. */
  readonly latenciesMs: readonly (number | null)[];
  readonly warmUp: FanOutWarmUp | null;
}

export interface FanOutResult {
  readonly subscribers: number;
  /** Events of each round. */
  readonly events: number;
  /** Deliveries over every round. */
  readonly delivered: number;
  readonly expected: number;
  /** Percentiles over the events of every round together: a p99 of 100 events is its second slowest. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The median round's CPU time of the service per event, ms (absent in older results). */
  readonly serverCpuMsPerEvent?: number | null;
  /** The highest of the rounds' peaks. */
  readonly peakRssMiB: number | null;
  /** The first round's warm-up. */
  readonly warmUp: FanOutWarmUp | null;
  /** Each round's own figures, in the order they ran (absent in older results). */
  readonly rounds?: readonly Omit<FanOutRound, 'latenciesMs' | 'warmUp'>[];
}

const SUBSCRIBERS = 1000;
const EVENTS = 100;
const INTERVAL_MS = 20;

/**
 * One round of the subscription fan-out as bench/README.md defines it: 1,000 subscribers, 100
 * `createPost` events one every 20 ms, latency from a mutation's sending until its last subscriber
 * has it. The peak RSS of the service is read from /proc after resetting it (Linux), so earlier
 * scenarios do not count. The warm-up sends events the same way for `warmupSeconds` first; they
 * are not counted.
 */
export async function measureFanOutRound(settings: FanOutSettings): Promise<FanOutRound> {
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
      SERVER_PID: String(settings.serverPid),
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
    serverCpuMsPerEvent: number | null;
    latenciesMs: (number | null)[];
    warmUp: { expected: number; p50Ms: number; p99Ms: number } | null;
  };
  return {
    delivered: measured.delivered,
    expected: measured.expected,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    peakRssMiB: peakReset ? await peakRssMiB(settings.serverPid) : null,
    serverCpuMsPerEvent: measured.serverCpuMsPerEvent,
    latenciesMs: measured.latenciesMs,
    warmUp: measured.warmUp && { events: measured.warmUp.expected / SUBSCRIBERS, p50Ms: measured.warmUp.p50Ms, p99Ms: measured.warmUp.p99Ms },
  };
}

/** The rounds of one service taken together: percentiles over all their events, the highest peak. */
export function combineFanOutRounds(rounds: readonly FanOutRound[]): FanOutResult {
  const latencies = rounds.flatMap((round) => round.latenciesMs.map((ms) => ms ?? Number.POSITIVE_INFINITY)).sort((a, b) => a - b);
  const peaks = rounds.map((round) => round.peakRssMiB).filter((peak): peak is number => peak !== null);
  const cpu = rounds.map((round) => round.serverCpuMsPerEvent).filter((ms): ms is number => ms !== null);
  return {
    subscribers: SUBSCRIBERS,
    events: EVENTS,
    delivered: rounds.reduce((sum, round) => sum + round.delivered, 0),
    expected: rounds.reduce((sum, round) => sum + round.expected, 0),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    serverCpuMsPerEvent: cpu.length === 0 ? null : (cpu[medianIndex(cpu)] as number),
    peakRssMiB: peaks.length === 0 ? null : Math.max(...peaks),
    warmUp: rounds[0]?.warmUp ?? null,
    rounds: rounds.map(({ latenciesMs: _latencies, warmUp: _warmUp, ...figures }) => figures),
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
