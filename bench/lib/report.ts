import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Target } from './scenario.ts';
import type { FanOutResult } from './fan-out.ts';
import type { SignInResult } from './sign-in.ts';
import type { ContentionResult } from './sign-in-contention.ts';
import type { FloodResult } from './sign-in-flood.ts';
import { type LongRunResults, markdownLongRuns, textLongRuns } from './long-runs.ts';

export interface ScenarioResult {
  readonly name: string;
  readonly description: string;
  readonly target: Target;
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly non2xx: number;
  /** Requests/s over bare Fastify's `GET /hello` requests/s in the same run. */
  readonly ratioToBare: number;
  /**
   * CPU the rest of the machine used during the measurement, in percent of one core (Linux only,
   * else null): well above 0, the scenario ran on a shared machine and its figures are low.
   */
  readonly otherCpuPercent: number | null;
  /**
   * The loaded server's own CPU time (user + system, every thread) over the measurement, divided by
   * the requests it answered, in µs (Linux only, else null). Less sensitive to the load generator
   * and to the rest of the machine than requests/s, though not immune: a busy machine's caches
   * are colder.
   */
  readonly serverCpuUsPerRequest: number | null;
}

/** One scenario now against the same scenario on the service before (`BENCH_BEFORE`). */
export interface BeforeAndAfter {
  readonly name: string;
  /** The median round's requests/s now over requests/s before, in the same round: below 1, slower now. */
  readonly throughputRatio: number;
  /** Every round's ratio, in order. */
  readonly throughputRatios: readonly number[];
  /** The median of the rounds' server CPU per request now over before: above 1, dearer now; null off Linux. */
  readonly cpuPerRequestRatio: number | null;
}

export interface Results {
  readonly date: string;
  readonly node: string;
  readonly machine: {
    readonly cores: number;
    readonly cpuModel: string;
    readonly platform: string;
    readonly arch: string;
  };
  readonly settings: {
    readonly seconds: number;
    readonly warmupSeconds: number;
    readonly connections: number;
    readonly rounds: number;
    readonly pinning: { readonly serverCpu: number; readonly loadGeneratorCpu: number } | null;
    readonly pinningNote: string | null;
    readonly loadGenerator: string;
    readonly database: string;
    readonly logLevel: string;
    /** The commit measured beside the working tree (`BENCH_BEFORE`); null or absent when none was. */
    readonly before?: { readonly ref: string; readonly commit: string } | null;
  };
  readonly scenarios: readonly ScenarioResult[];
  /** Each scenario of the service against the same on `BENCH_BEFORE`'s, in the same rounds; empty (or absent) without it. */
  readonly beforeAndAfter?: readonly BeforeAndAfter[];
  /** Sign-in throughput against the Argon2id verify rate; null when not run (`BENCH_SCENARIOS` without `sign-in`). */
  readonly signIn: SignInResult | null;
  /** Sign-in latency beside a saturating `GET /me`, `/health` beside sign-ins; null when not run. */
  readonly signInContention: ContentionResult | null;
  /** Another address's sign-ins alone and beside a flood from one address; null (or absent, in older results) when not run. */
  readonly signInFlood?: FloodResult | null;
  /** Subscription fan-out; null when not run (`BENCH_SCENARIOS` without `fan-out`). */
  readonly fanOut: FanOutResult | null;
  /** The same fan-out on `BENCH_BEFORE`'s service, measured just before; null (or absent) without it. */
  readonly fanOutBefore?: FanOutResult | null;
  /** Mixed traffic, idle subscriptions and the cold fan-out (lib/long-runs.ts); null when none ran. */
  readonly longRuns?: LongRunResults | null;
}

const START = '<!-- results:start -->';
const END = '<!-- results:end -->';

/** Writes through a temporary file, so a crash never leaves half a file. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** The console table. */
export function textTable(results: Results): string {
  const header = ['scenario', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', '× bare', 'CPU µs/req', 'other CPU'];
  const rows = results.scenarios.map((s) => [
    s.name,
    s.target,
    formatRate(s.requestsPerSecond),
    formatMs(s.latencyP50Ms),
    formatMs(s.latencyP99Ms),
    String(s.non2xx),
    s.ratioToBare.toFixed(2),
    formatMicroseconds(s.serverCpuUsPerRequest),
    formatPercent(s.otherCpuPercent),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  const table = [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
  const extras = [
    results.signIn && signInLine(results.signIn),
    results.signInContention && contentionLine(results.signInContention),
    results.signInFlood && floodLine(results.signInFlood),
    results.fanOutBefore && `before: ${fanOutLine(results.fanOutBefore)}`,
    results.fanOut && fanOutLine(results.fanOut),
    beforeAndAfterLines(results),
    textLongRuns(results.longRuns),
  ].filter(Boolean);
  return [table, ...extras].join('\n\n');
}

/** Now against before, one line a scenario; '' without `BENCH_BEFORE`. */
function beforeAndAfterLines(results: Results): string {
  const pairs = results.beforeAndAfter ?? [];
  const before = results.settings.before;
  const fanOut = results.fanOut && results.fanOutBefore ? fanOutChangeLine(results.fanOut, results.fanOutBefore) : null;
  if ((pairs.length === 0 && fanOut === null) || !before) return '';
  return [
    `now against ${before.ref} (${before.commit.slice(0, 10)}), in the same rounds:`,
    ...(fanOut === null ? [] : [fanOut]),
    ...pairs.map(
      (pair) =>
        `  ${pair.name}: requests/s ${formatChange(pair.throughputRatio)} (rounds ${pair.throughputRatios.map(formatChange).join(', ')}); ` +
        `server CPU per request ${pair.cpuPerRequestRatio === null ? 'n/a' : formatChange(pair.cpuPerRequestRatio)}`,
    ),
  ].join('\n');
}

/** A ratio as a signed percentage: 0.96 is −4.0 %. */
function formatChange(ratio: number): string {
  const percent = (ratio - 1) * 100;
  return `${percent >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(1)} %`;
}

function fanOutLine(fanOut: FanOutResult): string {
  const rounds = fanOut.rounds ?? [];
  return (
    `fan-out: ${fanOut.subscribers} subscribers × ${fanOut.events} events${rounds.length > 1 ? ` × ${rounds.length} rounds` : ''}: ${fanOut.delivered} of ${fanOut.expected} delivered; ` +
    `latency p50 ${fanOut.p50Ms.toFixed(1)} ms, p99 ${fanOut.p99Ms.toFixed(1)} ms (target ≤ 100 ms); ` +
    `peak RSS ${fanOut.peakRssMiB === null ? 'unknown' : `${fanOut.peakRssMiB} MiB`} (target ≤ 200 MiB)` +
    (fanOut.serverCpuMsPerEvent == null ? '' : `; service CPU ${fanOut.serverCpuMsPerEvent.toFixed(2)} ms an event`) +
    (fanOut.warmUp ? `; warm-up (${fanOut.warmUp.events} events, not counted): p50 ${fanOut.warmUp.p50Ms.toFixed(1)} ms, p99 ${fanOut.warmUp.p99Ms.toFixed(1)} ms` : '') +
    (rounds.length > 1 ? `\n  each round's p50 / p99 / peak RSS / CPU an event: ${rounds.map((round) => `${round.p50Ms.toFixed(1)} / ${round.p99Ms.toFixed(1)} ms / ${round.peakRssMiB ?? '?'} MiB / ${round.serverCpuMsPerEvent?.toFixed(2) ?? '?'} ms CPU`).join(', ')}` : '')
  );
}

/** The fan-out now against before: the percentiles over all rounds, and each round's p99 ratio. */
function fanOutChangeLine(now: FanOutResult, before: FanOutResult): string {
  const pairs = (now.rounds ?? []).map((round, at) => [round, before.rounds?.[at]] as const).filter(([, then]) => then !== undefined);
  return (
    `  fan-out: p50 ${formatChange(now.p50Ms / before.p50Ms)}, p99 ${formatChange(now.p99Ms / before.p99Ms)} over every round's events; ` +
    `peak RSS ${now.peakRssMiB === null || before.peakRssMiB === null ? 'n/a' : formatChange(now.peakRssMiB / before.peakRssMiB)}; ` +
    `service CPU an event ${now.serverCpuMsPerEvent == null || before.serverCpuMsPerEvent == null ? 'n/a' : formatChange(now.serverCpuMsPerEvent / before.serverCpuMsPerEvent)}` +
    (pairs.length > 1 ? `\n    each round's p99 ${pairs.map(([round, then]) => formatChange(round.p99Ms / then!.p99Ms)).join(', ')}` : '') +
    (pairs.length > 1 && pairs.every(([round, then]) => round.serverCpuMsPerEvent != null && then!.serverCpuMsPerEvent != null)
      ? `\n    each round's service CPU an event ${pairs.map(([round, then]) => formatChange(round.serverCpuMsPerEvent! / then!.serverCpuMsPerEvent!)).join(', ')}`
      : '')
  );
}

function contentionLine(contention: ContentionResult): string {
  const rounds = contention.rounds.map((round) => `${formatMs(round.signInP99Ms)} / ${formatMs(round.healthP99Ms)} ms`).join(', ');
  return (
    `sign-in beside GET /me (${contention.signInRate}/s, ${Math.round(contention.meRequestsPerSecond)} GET /me/s): p50 ${formatMs(contention.signInP50Ms)} ms, ` +
    `p99 ${formatMs(contention.signInP99Ms)} ms; /health beside sign-ins (${contention.signInsPerSecond.toFixed(1)}/s): p99 ${formatMs(contention.healthP99Ms)} ms` +
    (contention.rounds.length > 1 ? `\n  (the median of ${contention.rounds.length} rounds by sign-in p99; every round's sign-in p99 / /health p99: ${rounds})` : '')
  );
}

function floodLine(flood: FloodResult): string {
  return (
    `sign-in beside a flood from one address (${flood.floodConnections} connections): the flood ${Math.round(flood.floodPerSecond)}/s, ` +
    `${Math.round(flood.floodRefusedPerSecond)}/s refused, ${flood.floodHashedPerSecond.toFixed(1)}/s hashed; another address at ${flood.signInRate}/s: ` +
    `p50 ${formatMs(flood.besideFloodP50Ms)} ms, p99 ${formatMs(flood.besideFloodP99Ms)} ms, ${flood.otherRefused} of ${flood.otherSignIns} refused ` +
    `(alone: p50 ${formatMs(flood.baselineP50Ms)} ms, p99 ${formatMs(flood.baselineP99Ms)} ms)`
  );
}

/** The sign-in flood's rounds as a Markdown table, the median round in bold. */
export function floodTable(flood: FloodResult): string[] {
  return [
    '| Round | Alone p50 (ms) | Alone p99 (ms) | Beside the flood p50 (ms) | p99 (ms) | max (ms) | Refused (of) | Flood/s | Flood refused/s | Flood hashed/s |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...flood.rounds.map((round, at) => {
      const cells = [
        String(at + 1),
        formatMs(round.baselineP50Ms),
        formatMs(round.baselineP99Ms),
        formatMs(round.besideFloodP50Ms),
        formatMs(round.besideFloodP99Ms),
        formatMs(round.besideFloodMaxMs),
        `${round.otherRefused} (${round.otherSignIns})`,
        formatRate(round.floodPerSecond),
        formatRate(round.floodRefusedPerSecond),
        round.floodHashedPerSecond.toFixed(1),
      ];
      return `| ${(at === flood.medianRound ? cells.map((cell) => `**${cell}**`) : cells).join(' | ')} |`;
    }),
  ];
}

function signInLine(signIn: SignInResult): string {
  return (
    `sign-in: ${signIn.signInsPerSecond.toFixed(1)}/s against ${signIn.verifiesPerSecond.toFixed(1)} Argon2id verifies/s ` +
    `= ${signIn.ratioToVerifyRate.toFixed(2)}× (target ≥ 0.90×); /health meanwhile p50 ${formatMs(signIn.healthP50Ms)} ms, ` +
    `p99 ${formatMs(signIn.healthP99Ms)} ms (target ≤ 5 ms); the floor server ${signIn.floorSignInsPerSecond.toFixed(1)}/s ` +
    `= ${signIn.floorRatioToVerifyRate.toFixed(2)}×, its /health p99 ${formatMs(signIn.floorHealthP99Ms)} ms` +
    (signIn.rounds.length > 1
      ? `\n  (the median of ${signIn.rounds.length} rounds; every round's ratio and /health p99: ` +
        `${signIn.rounds.map((round) => `${round.ratioToVerifyRate.toFixed(2)}× ${formatMs(round.healthP99Ms)} ms`).join(', ')})`
      : '')
  );
}

/** The Markdown placed between the README's markers. */
export function markdownTable(results: Results): string {
  const { settings, machine } = results;
  const pinning =
    settings.pinning === null
      ? `not pinned (${settings.pinningNote ?? 'unknown reason'})`
      : `servers on core ${settings.pinning.serverCpu}, load generator on core ${settings.pinning.loadGeneratorCpu}`;
  const lines = [
    `Measured ${results.date} on ${machine.cores} cores (${machine.cpuModel}), Node ${results.node}, ` +
      `${settings.loadGenerator}: ${settings.connections} connections, ${settings.seconds} s per scenario and round, ` +
      `${settings.rounds} interleaved rounds (the median round's ratio to its own baseline is shown), ` +
      `after ${settings.warmupSeconds} s of warm-up; ${pinning}; ${settings.database}, \`LOG_LEVEL=${settings.logLevel}\`.`,
    '',
    '| Scenario | Request | Requests/s (mean) | p50 (ms) | p99 (ms) | Non-2xx | Ratio to bare `/hello` | Server CPU per request (µs) | Other processes\' CPU |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...results.scenarios.map(
      (s) =>
        `| \`${s.name}\` | ${s.description} | ${formatRate(s.requestsPerSecond)} | ${formatMs(s.latencyP50Ms)} | ` +
        `${formatMs(s.latencyP99Ms)} | ${s.non2xx} | ${s.ratioToBare.toFixed(2)}× | ${formatMicroseconds(s.serverCpuUsPerRequest)} | ${formatPercent(s.otherCpuPercent)} |`,
    ),
  ];
  if (results.signIn !== null) {
    const signIn = results.signIn;
    lines.push(
      '',
      `Sign-in (\`POST /account/login\` with a password, JSON, the same connections and seconds, after ${signIn.warmupSeconds} s of sign-ins not counted), against the Argon2id verify rate of the servers' core measured alone, with \`/health\` requested once every 10 ms meanwhile ([health-probe.ts](health-probe.ts)); then the same load and probe on the floor server (bare Fastify verifying with the same hasher and setting a cookie, nothing else: [servers/sign-in-floor.ts](servers/sign-in-floor.ts)). Each round measures the three back to back, and its ratios are taken against its own verify rate; the median round (by Gatehouse's ratio) is in bold:`,
      '',
      '| Round | Sign-ins/s | Argon2id verifies/s | Ratio | `/health` p50 (ms) | `/health` p99 (ms) | Floor sign-ins/s | Floor ratio | Floor `/health` p99 (ms) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...signIn.rounds.map((round, at) => {
        const cells = [
          String(at + 1),
          round.signInsPerSecond.toFixed(1),
          round.verifiesPerSecond.toFixed(1),
          `${round.ratioToVerifyRate.toFixed(2)}×`,
          formatMs(round.healthP50Ms),
          formatMs(round.healthP99Ms),
          round.floorSignInsPerSecond.toFixed(1),
          `${round.floorRatioToVerifyRate.toFixed(2)}×`,
          formatMs(round.floorHealthP99Ms),
        ];
        return `| ${(at === signIn.medianRound ? cells.map((cell) => `**${cell}**`) : cells).join(' | ')} |`;
      }),
    );
  }
  if (results.signInContention !== null) {
    const contention = results.signInContention;
    lines.push(
      '',
      `Sign-in beside other work ([lib/sign-in-contention.ts](lib/sign-in-contention.ts)): \`POST /account/login\` once every ${1000 / contention.signInRate} ms over one connection while \`GET /me\` (bearer) from ${settings.connections} connections keeps the servers' core busy; then \`/health\` once every 10 ms while sign-ins run as fast as they go. The two figures the hashing threads' priority trades (decision 0055); the median round by sign-in p99 is in bold:`,
      '',
      '| Round | Sign-in p50 (ms) | Sign-in p99 (ms) | Sign-in max (ms) | `GET /me`/s | `/health` p50 (ms) | `/health` p99 (ms) | Sign-ins/s |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...contention.rounds.map((round, at) => {
        const cells = [
          String(at + 1),
          formatMs(round.signInP50Ms),
          formatMs(round.signInP99Ms),
          formatMs(round.signInMaxMs),
          formatRate(round.meRequestsPerSecond),
          formatMs(round.healthP50Ms),
          formatMs(round.healthP99Ms),
          round.signInsPerSecond.toFixed(1),
        ];
        return `| ${(at === contention.medianRound ? cells.map((cell) => `**${cell}**`) : cells).join(' | ')} |`;
      }),
    );
  }
  if (results.signInFlood) {
    const flood = results.signInFlood;
    lines.push(
      '',
      `Sign-in beside a flood from one address ([lib/sign-in-flood.ts](lib/sign-in-flood.ts)): \`POST /account/login\` from 127.0.0.3 once every ${1000 / flood.signInRate} ms over one connection, alone, then while 127.0.0.2 sends wrong passwords for made-up accounts to \`/auth/token\` and \`/account/login\` from ${flood.floodConnections} connections, each as soon as its last is answered (rate limits off). Decision 0066; the median round by p99 beside the flood is in bold:`,
      '',
      ...floodTable(flood),
    );
  }
  if (results.fanOut !== null) {
    const fanOut = results.fanOut;
    lines.push(
      '',
      `Subscription fan-out: ${fanOut.subscribers} \`postCreated\` subscribers over WebSocket, ${fanOut.events} \`createPost\` mutations one every 20 ms${(fanOut.rounds?.length ?? 1) > 1 ? `, in ${fanOut.rounds!.length} rounds (new sockets each; the percentiles are over every round's events)` : ''}; latency from sending a mutation until its last subscriber has it; the service's peak RSS meanwhile (warm-up included; the highest round's). The warm-up's events, sent the same way before and not counted, are shown for the record: they are what the first events after a start cost.`,
      '',
      '| Delivered | Expected | p50 (ms) | p99 (ms) | Peak RSS (MiB) | Warm-up events | Warm-up p50 (ms) | Warm-up p99 (ms) |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${fanOut.delivered} | ${fanOut.expected} | ${fanOut.p50Ms.toFixed(1)} | ${fanOut.p99Ms.toFixed(1)} | ${fanOut.peakRssMiB ?? 'unknown'} | ${fanOut.warmUp?.events ?? 0} | ${fanOut.warmUp ? fanOut.warmUp.p50Ms.toFixed(1) : '–'} | ${fanOut.warmUp ? fanOut.warmUp.p99Ms.toFixed(1) : '–'} |`,
    );
  }
  if (results.fanOutBefore && results.settings.before) {
    const before = results.fanOutBefore;
    lines.push(
      '',
      `The same fan-out on the service at \`${results.settings.before.ref}\` (${results.settings.before.commit.slice(0, 10)}), in the same rounds, taking turns to go first: ${before.delivered} of ${before.expected} delivered, p50 ${before.p50Ms.toFixed(1)} ms, p99 ${before.p99Ms.toFixed(1)} ms, peak RSS ${before.peakRssMiB ?? 'unknown'} MiB.`,
    );
  }
  const comparison = beforeAndAfterLines(results);
  if (comparison !== '') lines.push('', '```', comparison, '```');
  const longRuns = markdownLongRuns(results.longRuns, results.fanOut);
  if (longRuns !== '') lines.push('', longRuns);
  return lines.join('\n');
}

/** Replaces what lies between the markers of `readmePath`; appends a marked section if they are missing. */
export async function updateReadme(readmePath: string, markdown: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(readmePath, 'utf8');
  } catch {
    text = '# Benchmarks\n';
  }
  const block = `${START}\n${markdown}\n${END}`;
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const updated =
    start !== -1 && end > start
      ? text.slice(0, start) + block + text.slice(end + END.length)
      : `${text.trimEnd()}\n\n## Results\n\n${block}\n`;
  await writeAtomically(readmePath, updated);
}

function formatPercent(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(0)}%`;
}

function formatMicroseconds(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(1);
}

function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** autocannon records latencies in whole milliseconds; fractions only appear in means. */
function formatMs(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
