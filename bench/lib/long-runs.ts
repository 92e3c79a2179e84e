import { join } from 'node:path';
import { ME_POSTS_QUERY } from '../scenarios/graphql-me-posts.ts';
import { cpuSnapshot, otherCpuPercent, processCpuSeconds } from './cpu-usage.ts';
import type { FanOutResult } from './fan-out.ts';
import { obtainAccessToken } from './gatehouse.ts';
import { runToCompletion, type Server } from './processes.ts';

// The bench's longer measurements (bench/README.md, "Mixed traffic, idle subscriptions and the cold
// fan-out"): each bounded in time, each selectable alone by its name in BENCH_SCENARIOS.

/** The names that select each of them in `BENCH_SCENARIOS`, in the order they run. */
export const LONG_RUN_NAMES: readonly string[] = ['fan-out-cold', 'mixed-sqlite', 'mixed-postgres', 'idle-subscriptions'];

/** A running service and the account its clients sign in with. */
export interface RunningService {
  readonly server: Server;
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
}

export interface LongRunContext {
  readonly root: string;
  readonly sqlite: RunningService;
  readonly postgres: RunningService | null;
  /** A service started afresh on a database of its own, for the cold fan-out; stopped after it. */
  readonly startFreshService: () => Promise<RunningService>;
  readonly loadGeneratorCpu: number | null;
  readonly log: (message: string) => void;
}

export interface MixedKind {
  readonly requests: number;
  readonly errors: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface MixedResult {
  readonly database: 'SQLite' | 'PostgreSQL';
  readonly seconds: number;
  readonly clients: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorRate: number;
  readonly kinds: Readonly<Record<'me' | 'graphql' | 'refresh', MixedKind>>;
  readonly firstErrors: readonly string[];
  readonly serverCpuUsPerRequest: number | null;
  readonly otherCpuPercent: number | null;
}

export interface IdleSubscriptionsResult {
  readonly subscribers: number;
  readonly seconds: number;
  readonly sampleSeconds: number;
  readonly rssBeforeMiB: number;
  readonly firstMiB: number;
  readonly lastMiB: number;
  readonly maxMiB: number;
  /** The least-squares slope of RSS over the soak, MiB per minute. */
  readonly slopeMiBPerMinute: number;
  /** Sockets the server closed meanwhile (must be 0). */
  readonly closed: number;
  readonly samples: readonly (readonly [number, number])[];
  readonly otherCpuPercent: number | null;
}

export interface ColdFanOutResult {
  readonly subscribers: number;
  readonly events: number;
  readonly delivered: number;
  readonly expected: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The first ten events, in the order sent, ms each. */
  readonly firstMs: readonly number[];
}

export interface LongRunResults {
  readonly mixed: readonly MixedResult[];
  readonly idleSubscriptions: IdleSubscriptionsResult | null;
  readonly coldFanOut: ColdFanOutResult | null;
}

function readIntegerEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

export const longRunSettings = {
  mixedSeconds: readIntegerEnv('BENCH_MIXED_SECONDS', 60, 1, 3_600),
  mixedClients: readIntegerEnv('BENCH_MIXED_CLIENTS', 32, 1, 1_000),
  soakSeconds: readIntegerEnv('BENCH_SOAK_SECONDS', 600, 1, 86_400),
  soakSampleSeconds: readIntegerEnv('BENCH_SOAK_SAMPLE_SECONDS', 5, 1, 600),
  soakSubscribers: 1000,
  coldEvents: 100,
};

/** Runs the selected long measurements, in `LONG_RUN_NAMES`' order. */
export async function measureLongRuns(selected: readonly string[], context: LongRunContext): Promise<LongRunResults> {
  let coldFanOut: ColdFanOutResult | null = null;
  const mixed: MixedResult[] = [];
  let idleSubscriptions: IdleSubscriptionsResult | null = null;
  if (selected.includes('fan-out-cold')) coldFanOut = await measureColdFanOut(context);
  if (selected.includes('mixed-sqlite')) mixed.push(await measureMixed(context, context.sqlite, 'SQLite'));
  if (selected.includes('mixed-postgres')) {
    if (context.postgres === null) throw new Error('mixed-postgres needs the PostgreSQL service');
    mixed.push(await measureMixed(context, context.postgres, 'PostgreSQL'));
  }
  if (selected.includes('idle-subscriptions')) idleSubscriptions = await measureIdleSubscriptions(context);
  return { mixed, idleSubscriptions, coldFanOut };
}

async function measureMixed(context: LongRunContext, service: RunningService, database: MixedResult['database']): Promise<MixedResult> {
  const { mixedSeconds: seconds, mixedClients: clients } = longRunSettings;
  context.log(`mixed-${database === 'SQLite' ? 'sqlite' : 'postgres'}: ${clients} clients, ${seconds} s of 80 % GET /me, 15 % GraphQL, 5 % refresh…`);
  // The clients' sign-ins come before the window; the window's CPU figures start with the load.
  const before = cpuSnapshot([service.server.pid]);
  const serverBefore = processCpuSeconds(service.server.pid);
  const { stdout } = await runToCompletion('mixed client', process.execPath, ['--import', 'tsx', join(context.root, 'bench/mixed-client.ts')], {
    env: {
      ...process.env,
      BASE_URL: service.baseUrl,
      EMAIL: service.email,
      PASSWORD: service.password,
      CLIENTS: String(clients),
      SECONDS: String(seconds),
      GRAPHQL_QUERY: ME_POSTS_QUERY,
    },
    cwd: context.root,
    cpu: context.loadGeneratorCpu,
  });
  const otherCpu = otherCpuPercent(before, cpuSnapshot([service.server.pid]));
  const serverAfter = processCpuSeconds(service.server.pid);
  const measured = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Omit<MixedResult, 'database' | 'serverCpuUsPerRequest' | 'otherCpuPercent'>;
  return {
    database,
    ...measured,
    serverCpuUsPerRequest: serverBefore === null || serverAfter === null || measured.requests === 0 ? null : ((serverAfter - serverBefore) * 1e6) / measured.requests,
    otherCpuPercent: otherCpu,
  };
}

async function measureIdleSubscriptions(context: LongRunContext): Promise<IdleSubscriptionsResult> {
  const { soakSeconds, soakSampleSeconds, soakSubscribers } = longRunSettings;
  const service = context.sqlite;
  context.log(`idle-subscriptions: ${soakSubscribers} subscriptions held ${soakSeconds} s, RSS every ${soakSampleSeconds} s…`);
  const accessToken = await obtainAccessToken(service.baseUrl, service.email, service.password);
  const before = cpuSnapshot([service.server.pid]);
  const { stdout } = await runToCompletion('idle subscriptions', process.execPath, ['--import', 'tsx', join(context.root, 'bench/idle-subscriptions-client.ts')], {
    env: {
      ...process.env,
      BASE_URL: service.baseUrl,
      ACCESS_TOKEN: accessToken,
      SERVER_PID: String(service.server.pid),
      SUBSCRIBERS: String(soakSubscribers),
      SOAK_SECONDS: String(soakSeconds),
      SAMPLE_SECONDS: String(soakSampleSeconds),
    },
    cwd: context.root,
    cpu: context.loadGeneratorCpu,
  });
  const otherCpu = otherCpuPercent(before, cpuSnapshot([service.server.pid]));
  const measured = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { subscribers: number; rssBeforeMiB: number; samples: [number, number][]; closed: number };
  const rss = measured.samples.map(([, mib]) => mib);
  return {
    subscribers: measured.subscribers,
    seconds: soakSeconds,
    sampleSeconds: soakSampleSeconds,
    rssBeforeMiB: measured.rssBeforeMiB,
    firstMiB: rss[0] ?? 0,
    lastMiB: rss.at(-1) ?? 0,
    maxMiB: Math.max(...rss),
    slopeMiBPerMinute: Math.round(slope(measured.samples) * 60 * 1000) / 1000,
    closed: measured.closed,
    samples: measured.samples,
    otherCpuPercent: otherCpu,
  };
}

/** Least-squares slope of y over x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const [x, y] of points) {
    numerator += (x - meanX) * (y - meanY);
    denominator += (x - meanX) ** 2;
  }
  return denominator === 0 ? 0 : numerator / denominator;
}

/**
 * The fan-out on a service started for it alone: no HTTP scenario, no warm-up event, nothing but
 * the account's sign-in before the 1,000 subscribers and the first events. What a deployment's
 * first events after a start cost.
 */
async function measureColdFanOut(context: LongRunContext): Promise<ColdFanOutResult> {
  const { coldEvents: events } = longRunSettings;
  context.log(`fan-out-cold: a fresh service, 1,000 subscribers, ${events} events with no warm-up…`);
  const service = await context.startFreshService();
  try {
    const accessToken = await obtainAccessToken(service.baseUrl, service.email, service.password);
    const { stdout } = await runToCompletion('fan-out client (cold)', process.execPath, ['--import', 'tsx', join(context.root, 'bench/fan-out-client.ts')], {
      env: { ...process.env, BASE_URL: service.baseUrl, ACCESS_TOKEN: accessToken, SUBSCRIBERS: '1000', EVENTS: String(events), INTERVAL_MS: '20', WARMUP_EVENTS: '0' },
      cwd: context.root,
      cpu: context.loadGeneratorCpu,
    });
    const measured = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Omit<ColdFanOutResult, 'subscribers' | 'events'>;
    return { subscribers: 1000, events, delivered: measured.delivered, expected: measured.expected, p50Ms: measured.p50Ms, p99Ms: measured.p99Ms, maxMs: measured.maxMs, firstMs: measured.firstMs };
  } finally {
    await service.server.stop();
  }
}

/** The Markdown of bench/README.md's results for these measurements ('' when none ran). */
export function markdownLongRuns(results: LongRunResults | null | undefined, warmFanOut: FanOutResult | null): string {
  if (!results) return '';
  const lines: string[] = [];
  const { coldFanOut, mixed, idleSubscriptions } = results;
  if (coldFanOut !== null) {
    lines.push(
      `**Fan-out, cold against warm.** Cold: a service started for it alone, nothing before its first events but the sign-in of the account and the ${coldFanOut.subscribers} subscriptions (no HTTP scenario, no warm-up event). Warm: the fan-out above, on the service every other scenario has run on, after its warm-up events.`,
      '',
      '| | Delivered | Expected | p50 (ms) | p99 (ms) | Max (ms) | First ten events, in order (ms) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      `| **cold** (first ${coldFanOut.events} events after a start) | ${coldFanOut.delivered} | ${coldFanOut.expected} | **${coldFanOut.p50Ms.toFixed(1)}** | **${coldFanOut.p99Ms.toFixed(1)}** | ${coldFanOut.maxMs.toFixed(1)} | ${coldFanOut.firstMs.map((ms) => ms.toFixed(0)).join(', ')} |`,
      warmFanOut === null
        ? '| warm | (not run) | | | | | |'
        : `| warm | ${warmFanOut.delivered} | ${warmFanOut.expected} | ${warmFanOut.p50Ms.toFixed(1)} | ${warmFanOut.p99Ms.toFixed(1)} | | |`,
      '',
    );
  }
  if (mixed.length > 0) {
    const seconds = Math.round(mixed[0]!.seconds);
    lines.push(
      `**Mixed traffic**: ${mixed[0]!.clients} clients for ${seconds} s, each on its own connection and refresh family, requests back to back: 80 % \`GET /me\`, 15 % \`{ me { id } posts(first: 20) { id title } }\`, 5 % \`POST /auth/refresh\` (each client following its own rotation). Errors must be 0.`,
      '',
      '| Database | Requests | Errors | Error rate | `/me` /s | `/me` p50 / p99 (ms) | GraphQL /s | GraphQL p50 / p99 (ms) | Refresh /s | Refresh p50 / p99 (ms) | Server CPU per request (µs) | Other processes\' CPU |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...mixed.map(({ database, requests, errors, errorRate, kinds, serverCpuUsPerRequest, otherCpuPercent }) =>
        `| ${database} | ${requests} | ${errors} | ${(errorRate * 100).toFixed(2)} % | ${rate(kinds.me)} | ${ms(kinds.me)} | ${rate(kinds.graphql)} | ${ms(kinds.graphql)} | ${rate(kinds.refresh)} | ${ms(kinds.refresh)} | ${serverCpuUsPerRequest === null ? 'n/a' : serverCpuUsPerRequest.toFixed(0)} | ${otherCpuPercent === null ? 'n/a' : `${otherCpuPercent.toFixed(0)}%`} |`,
      ),
      '',
    );
  }
  if (idleSubscriptions !== null) {
    const s = idleSubscriptions;
    lines.push(
      `**Idle subscriptions**: ${s.subscribers} \`postCreated\` subscriptions held for ${s.seconds} s without an event; the service's RSS every ${s.sampleSeconds} s. It must not grow.`,
      '',
      '| RSS before (MiB) | First (MiB) | Last (MiB) | Max (MiB) | Slope (MiB/min) | Sockets closed | Other processes\' CPU |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${s.rssBeforeMiB} | ${s.firstMiB} | ${s.lastMiB} | ${s.maxMiB} | ${s.slopeMiBPerMinute.toFixed(3)} | ${s.closed} | ${s.otherCpuPercent === null ? 'n/a' : `${s.otherCpuPercent.toFixed(0)}%`} |`,
      '',
    );
  }
  return lines.join('\n').trimEnd();
}

/** The console lines of these measurements. */
export function textLongRuns(results: LongRunResults | null | undefined): string {
  if (!results) return '';
  const lines: string[] = [];
  const { coldFanOut: cold, mixed, idleSubscriptions: idle } = results;
  if (cold !== null) lines.push(`fan-out cold (fresh start, no warm-up): ${cold.delivered}/${cold.expected} delivered; p50 ${cold.p50Ms.toFixed(1)} ms, p99 ${cold.p99Ms.toFixed(1)} ms, max ${cold.maxMs.toFixed(1)} ms; first events ${cold.firstMs.map((v) => v.toFixed(0)).join(', ')} ms`);
  for (const m of mixed) {
    lines.push(
      `mixed ${m.database}: ${m.requests} requests, ${m.errors} errors; /me ${rate(m.kinds.me)}/s ${ms(m.kinds.me)} ms; GraphQL ${rate(m.kinds.graphql)}/s ${ms(m.kinds.graphql)} ms; ` +
        `refresh ${rate(m.kinds.refresh)}/s ${ms(m.kinds.refresh)} ms; other CPU ${m.otherCpuPercent?.toFixed(0) ?? 'n/a'}%` +
        (m.firstErrors.length > 0 ? `\n  first errors: ${m.firstErrors.join(' | ')}` : ''),
    );
  }
  if (idle !== null) lines.push(`idle subscriptions: ${idle.subscribers} for ${idle.seconds} s: RSS first ${idle.firstMiB} MiB, last ${idle.lastMiB}, max ${idle.maxMiB}, slope ${idle.slopeMiBPerMinute.toFixed(3)} MiB/min; ${idle.closed} sockets closed`);
  return lines.join('\n');
}

function rate(kind: MixedKind): string {
  return Math.round(kind.perSecond).toLocaleString('en-US');
}

function ms(kind: MixedKind): string {
  return `${kind.p50Ms.toFixed(2)} / ${kind.p99Ms.toFixed(2)}`;
}
