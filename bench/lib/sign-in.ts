import { join } from 'node:path';
import { type LoadResult, runLoad } from './autocannon.ts';
import { freePort, serviceArguments } from './gatehouse.ts';
import { medianIndex } from './percentile.ts';
import { runToCompletion, startServer } from './processes.ts';

export interface SignInSettings {
  readonly root: string;
  readonly host: string;
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
  readonly seconds: number;
  /** Sign-ins on each server before the first round, not counted (see `measureSignIn`). */
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  readonly serverCpu: number | null;
  readonly loadGeneratorCpu: number | null;
  readonly log: (message: string) => void;
}

/** One round: the verify rate, then Gatehouse's sign-ins, then the floor server's, back to back. */
export interface SignInRound {
  /** Argon2id verifications per second of the servers' core, measured alone. */
  readonly verifiesPerSecond: number;
  /** Successful `POST /account/login` (a cookie sign-in with a password), per second. */
  readonly signInsPerSecond: number;
  readonly ratioToVerifyRate: number;
  /** `/health` at a steady 100 requests/s while the sign-ins run. */
  readonly healthP50Ms: number;
  readonly healthP99Ms: number;
  readonly signInNon2xx: number;
  /** The same load on the floor server (bench/servers/sign-in-floor.ts): a verify and a cookie, nothing else. */
  readonly floorSignInsPerSecond: number;
  readonly floorRatioToVerifyRate: number;
  /** The floor server's own `/health` meanwhile: what the core and the machine allow. */
  readonly floorHealthP99Ms: number;
}

/** The round whose Gatehouse ratio is the median, with every round for the record. */
export interface SignInResult extends SignInRound {
  /** Sign-ins measured after `warmupSeconds` of uncounted ones on each server. */
  readonly warmupSeconds: number;
  readonly rounds: readonly SignInRound[];
  /** Which of `rounds` is the median one (from 0). */
  readonly medianRound: number;
}

/** Requests/s of `/health` alongside the sign-ins: enough for a p99, too few to matter to the core. */
const HEALTH_RATE = 100;

/**
 * Seconds of the same load, not counted, before each measured window: a server has stood idle
 * while the others were measured, and V8 uses idle time to shrink its heap, whose collections and
 * regrowth then land in the first seconds of load (decision 0027). The window measures a server
 * under sign-in load, as bench/README.md says, not its return from idleness.
 */
const SETTLE_SECONDS = 5;

/**
 * Sign-in throughput against the Argon2id verify rate (bench/README.md). A round measures the
 * verify rate of the servers' core, with the service's own hasher, alone; then password sign-ins
 * on the service for as long, with `/health` requested at a steady rate meanwhile, whose latency
 * shows whether hashing starves the event loop; then the same sign-in load on the floor server,
 * which verifies with the same hasher and does nothing else, so that the report shows how close to
 * the verify rate any sign-in on this core can come. Sign-ins are bound by the hash, so the ratio
 * says how much the rest of a sign-in (look-up, failure counter, audit row, session, cookie) costs
 * on top.
 *
 * The rounds are interleaved and each ratio is taken against the verify rate of its own round, as
 * the HTTP scenarios are measured against bare Fastify: this machine's speed drifts within
 * minutes, and a verify rate measured once, before everything else, skews every ratio after it.
 * The median round is reported.
 *
 * Each server first gets `warmupSeconds` of sign-ins, not counted, as every HTTP scenario gets a
 * warm-up: at ~100 sign-ins a second, the JIT compiles the sign-in path for many seconds, on the
 * same core (decisions 0026 and 0027).
 */
export async function measureSignIn(settings: SignInSettings): Promise<SignInResult> {
  return withFloorServer(settings, async (floorUrl) => {
    if (settings.warmupSeconds > 0) {
      settings.log(`sign-in: warming up Gatehouse and the floor server, ${settings.warmupSeconds} s each…`);
      await signInLoad(settings, settings.baseUrl, settings.warmupSeconds);
      await signInLoad(settings, floorUrl, settings.warmupSeconds);
    }
    const rounds: SignInRound[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      settings.log(`sign-in: the verify rate, Gatehouse, the floor server, ${settings.seconds} s each (round ${round} of ${settings.rounds})…`);
      rounds.push(await measureRound(settings, floorUrl));
    }
    const medianRound = medianIndex(rounds.map((round) => round.ratioToVerifyRate));
    return { ...(rounds[medianRound] as SignInRound), warmupSeconds: settings.warmupSeconds, rounds, medianRound };
  });
}

async function measureRound(settings: SignInSettings, floorUrl: string): Promise<SignInRound> {
  const verifiesPerSecond = await measureVerifyRate(settings);
  await signInLoad(settings, settings.baseUrl, SETTLE_SECONDS);
  const signIns = await signInLoad(settings, settings.baseUrl, settings.seconds);
  await signInLoad(settings, floorUrl, SETTLE_SECONDS);
  const floor = await signInLoad(settings, floorUrl, settings.seconds);
  return {
    verifiesPerSecond,
    signInsPerSecond: signIns.signIns.requestsPerSecond,
    ratioToVerifyRate: signIns.signIns.requestsPerSecond / verifiesPerSecond,
    healthP50Ms: signIns.health.latencyP50Ms,
    healthP99Ms: signIns.health.latencyP99Ms,
    signInNon2xx: signIns.signIns.non2xx,
    floorSignInsPerSecond: floor.signIns.requestsPerSecond,
    floorRatioToVerifyRate: floor.signIns.requestsPerSecond / verifiesPerSecond,
    floorHealthP99Ms: floor.health.latencyP99Ms,
  };
}

function signInRequest(settings: SignInSettings, baseUrl: string) {
  const body = JSON.stringify({ email: settings.email, password: settings.password });
  return {
    baseUrl,
    cpu: settings.loadGeneratorCpu,
    cwd: settings.root,
    connections: settings.connections,
    request: { method: 'POST' as const, path: '/account/login', headers: { 'content-type': 'application/json' }, body },
  };
}

/** Sign-ins for `seconds`, with `/health` probed meanwhile; warm-ups run the same load as measurements. */
export async function signInLoad(settings: SignInSettings, baseUrl: string, seconds: number): Promise<{ signIns: LoadResult; health: ProbeResult }> {
  const [signIns, health] = await Promise.all([runLoad({ ...signInRequest(settings, baseUrl), seconds }), probeHealth(settings, baseUrl, seconds)]);
  assertClean('sign-in', signIns);
  return { signIns, health };
}

export interface ProbeResult {
  readonly requests: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** Answers by status code. */
  readonly statuses: Readonly<Record<string, number>>;
}

/** `/health` at a steady `HEALTH_RATE` from the load generator's core (bench/health-probe.ts); every answer must be a 2xx. */
function probeHealth(settings: SignInSettings, baseUrl: string, seconds: number): Promise<ProbeResult> {
  return probeLatency(settings, { url: new URL('/health', baseUrl), rate: HEALTH_RATE, seconds, name: 'health under sign-in load' });
}

export interface ProbeRequest {
  readonly url: URL;
  /** Requests a second, one at a time over one connection. */
  readonly rate: number;
  readonly seconds: number;
  /** For the error message. */
  readonly name: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Sent from this address (another loopback address is another client). */
  readonly localAddress?: string;
}

/** One request at a steady rate from the load generator's core (bench/health-probe.ts); every answer must be a 2xx. */
export async function probeLatency(settings: Pick<SignInSettings, 'root' | 'loadGeneratorCpu'>, probe: ProbeRequest): Promise<ProbeResult> {
  const result = await probeAnswers(settings, probe);
  if (result.non2xx !== 0 || result.errors !== 0 || result.requests === 0) {
    throw new Error(`${probe.name}: ${result.requests} requests, ${result.non2xx} non-2xx, ${result.errors} errors; all must be 0 and some requests must be made`);
  }
  return result;
}

/** As `probeLatency`, but any answer is a result: the caller counts the refusals. */
export async function probeAnswers(settings: Pick<SignInSettings, 'root' | 'loadGeneratorCpu'>, probe: ProbeRequest): Promise<ProbeResult> {
  const { stdout } = await runToCompletion(`${probe.name} probe`, process.execPath, ['--import', 'tsx', join(settings.root, 'bench/health-probe.ts')], {
    env: {
      ...process.env,
      PROBE_URL: probe.url.href,
      PROBE_RATE: String(probe.rate),
      PROBE_SECONDS: String(probe.seconds),
      PROBE_METHOD: probe.method ?? 'GET',
      PROBE_HEADERS: JSON.stringify(probe.headers ?? {}),
      ...(probe.body === undefined ? {} : { PROBE_BODY: probe.body }),
      ...(probe.localAddress === undefined ? {} : { PROBE_LOCAL_ADDRESS: probe.localAddress }),
    },
    cwd: settings.root,
    cpu: settings.loadGeneratorCpu,
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  const result = JSON.parse(line) as Partial<ProbeResult>;
  if (typeof result.latencyP99Ms !== 'number' || typeof result.requests !== 'number') throw new Error(`${probe.name}: unexpected output ${line}`);
  return result as ProbeResult;
}

/** Runs `work` against the floor server, started pinned to the servers' core with the service's Node arguments. */
async function withFloorServer<T>(settings: SignInSettings, work: (baseUrl: string) => Promise<T>): Promise<T> {
  const port = await freePort(settings.host);
  // The service's Node arguments but its entry script, the last of them.
  const nodeArguments = serviceArguments(settings.root).slice(0, -1);
  const server = await startServer({
    name: 'sign-in floor',
    command: process.execPath,
    // The floor is TypeScript: the service's flags, and tsx to load it.
    args: [...nodeArguments, '--import', 'tsx', join(settings.root, 'bench/servers/sign-in-floor.ts')],
    env: { ...process.env, HOST: settings.host, PORT: String(port), BENCH_PASSWORD: settings.password },
    cwd: settings.root,
    cpu: settings.serverCpu,
    readyUrl: `http://${settings.host}:${port}/health`,
  });
  try {
    return await work(`http://${settings.host}:${port}`);
  } finally {
    await server.stop();
  }
}

async function measureVerifyRate(settings: SignInSettings): Promise<number> {
  const { stdout } = await runToCompletion('verify rate', process.execPath, ['--import', 'tsx', join(settings.root, 'bench/verify-rate.ts')], {
    env: { ...process.env, VERIFY_SECONDS: String(settings.seconds), CONCURRENCY: String(settings.connections) },
    cwd: settings.root,
    cpu: settings.serverCpu,
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  const { verifiesPerSecond } = JSON.parse(line) as { verifiesPerSecond?: unknown };
  if (typeof verifiesPerSecond !== 'number' || !(verifiesPerSecond > 0)) throw new Error(`verify rate: unexpected output ${line}`);
  return verifiesPerSecond;
}

function assertClean(name: string, result: LoadResult): void {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && result.totalRequests > 0) return;
  throw new Error(
    `${name}: ${result.totalRequests} requests, ${result.non2xx} non-2xx (${JSON.stringify(result.statusClasses)}), ` +
      `${result.errors} errors, ${result.timeouts} timeouts; all must be 0 and some requests must be made`,
  );
}
