import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ResolvedRequest } from './scenario.ts';
import { runToCompletion } from './processes.ts';

const require = createRequire(import.meta.url);
const autocannonDir = dirname(require.resolve('autocannon/package.json'));
/** The autocannon CLI, run as its own process so it never shares the orchestrator's event loop. */
const autocannonCli = join(autocannonDir, 'autocannon.js');
export const autocannonVersion = (JSON.parse(readFileSync(join(autocannonDir, 'package.json'), 'utf8')) as { version: string }).version;

export interface LoadOptions {
  readonly baseUrl: string;
  readonly request: ResolvedRequest;
  readonly connections: number;
  readonly seconds: number;
  /** Core to pin the load generator to, or `null`. */
  readonly cpu: number | null;
  readonly cwd: string;
}

export interface LoadResult {
  /** Mean of the per-second request counts. */
  readonly requestsPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMeanMs: number;
  readonly totalRequests: number;
  readonly non2xx: number;
  /** Connection errors and timeouts: must be 0 as well. */
  readonly errors: number;
  readonly timeouts: number;
  /** Responses by status class, as autocannon counts them. */
  readonly statusClasses: Readonly<Record<string, number>>;
}

/** The part of autocannon's `--json` output read here. */
interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; mean: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
}

/** Runs autocannon against one scenario for `seconds` and parses its JSON report. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { request } = options;
  const args = [
    autocannonCli,
    '--json',
    '--no-progress',
    '-c', String(options.connections),
    '-d', String(options.seconds),
    '-m', request.method,
    ...Object.entries(request.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
    ...(request.body === undefined ? [] : ['-b', request.body]),
    new URL(request.path, options.baseUrl).href,
  ];
  const { stdout } = await runToCompletion('autocannon', process.execPath, args, {
    env: process.env,
    cwd: options.cwd,
    cpu: options.cpu,
  });
  const report = parseReport(stdout);
  return {
    requestsPerSecond: report.requests.average,
    latencyP50Ms: report.latency.p50,
    latencyP99Ms: report.latency.p99,
    latencyMeanMs: report.latency.mean,
    totalRequests: report.requests.total,
    non2xx: report.non2xx,
    errors: report.errors,
    timeouts: report.timeouts,
    statusClasses: { '1xx': report['1xx'], '2xx': report['2xx'], '3xx': report['3xx'], '4xx': report['4xx'], '5xx': report['5xx'] },
  };
}

function parseReport(stdout: string): AutocannonJson {
  const line = stdout.trim().split('\n').reverse().find((candidate) => candidate.startsWith('{'));
  if (line === undefined) throw new Error(`autocannon printed no JSON report:\n${stdout.slice(-2_000)}`);
  const report = JSON.parse(line) as Partial<AutocannonJson>;
  if (typeof report.requests?.average !== 'number' || typeof report.latency?.p99 !== 'number' || typeof report.non2xx !== 'number') {
    throw new Error(`autocannon's JSON report lacks requests.average, latency.p99 or non2xx:\n${line.slice(0, 2_000)}`);
  }
  return report as AutocannonJson;
}
