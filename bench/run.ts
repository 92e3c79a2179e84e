// `npm run bench`: the HTTP benchmarks of bench/README.md. Starts Gatehouse (fresh SQLite database)
// and a bare Fastify server side by side, pinned to one core, loads each scenario of
// bench/scenarios/ in turn with autocannon pinned to the other core, and reports every scenario as a
// ratio to bare Fastify's `GET /hello` measured in the same run. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { autocannonVersion, type LoadResult, runLoad } from './lib/autocannon.ts';
import { cpuSnapshot, otherCpuPercent, processCpuSeconds } from './lib/cpu-usage.ts';
import { freePort, gatehouseCli, obtainAccessToken, seedPosts, serviceArguments } from './lib/gatehouse.ts';
import { combineFanOutRounds, type FanOutResult, type FanOutRound, measureFanOutRound } from './lib/fan-out.ts';
import { measureSignIn, type SignInResult } from './lib/sign-in.ts';
import { type ContentionResult, measureSignInContention } from './lib/sign-in-contention.ts';
import { type FloodResult, measureSignInFlood } from './lib/sign-in-flood.ts';
import { medianIndex } from './lib/percentile.ts';
import { type Pinning, planPinning } from './lib/pinning.ts';
import { isPeerTarget, peerIssuer, startPeer } from './lib/peers.ts';
import { liveChildren, type Server, startServer, stopAllChildren } from './lib/processes.ts';
import { type BeforeAndAfter, markdownTable, type Results, type ScenarioResult, textTable, updateReadme, writeAtomically } from './lib/report.ts';
import { BASELINE_SCENARIO, baselineOf, loadScenarios, resolveRequest, type Scenario, type Target } from './lib/scenario.ts';
import { bareServerOf, HOSTS, type HostBareTarget, isHostBareTarget, isHostTarget } from './lib/hosts.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { type LongRunResults, LONG_RUN_NAMES, measureLongRuns } from './lib/long-runs.ts';
import { buildRevision, type Revision } from './lib/revision.ts';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const HOST = '127.0.0.1';
const LOG_LEVEL = 'warn';
/** Above this share of a core taken by other processes during a measurement, the run says its figures are noisy. */
const OTHER_CPU_WARNING = 10;
/** The name that selects the sign-in measurement in `BENCH_SCENARIOS` (it is not an HTTP scenario file). */
const SIGN_IN = 'sign-in';
/** The name that selects sign-in latency beside `GET /me` (and `/health` beside sign-ins) in `BENCH_SCENARIOS`. */
const SIGN_IN_CONTENTION = 'sign-in-contention';
/** The name that selects another address's sign-ins beside a flood from one address in `BENCH_SCENARIOS`. */
const SIGN_IN_FLOOD = 'sign-in-flood';
/** The name that selects the subscription fan-out in `BENCH_SCENARIOS`. */
const FAN_OUT = 'fan-out';
/** The GraphQL scenario reads from a store holding this many posts (bench/README.md). */
const SEEDED_POSTS = 100;

function readIntegerEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return value;
}

const settings = {
  seconds: readIntegerEnv('BENCH_SECONDS', 10, 1, 3_600),
  warmupSeconds: readIntegerEnv('BENCH_WARMUP_SECONDS', 2, 0, 600),
  /** Sign-ins run ~100 times fewer requests a second than the HTTP scenarios: their JIT warm-up takes as much longer. */
  signInWarmupSeconds: readIntegerEnv('BENCH_SIGN_IN_WARMUP_SECONDS', 30, 0, 600),
  connections: readIntegerEnv('BENCH_CONNECTIONS', 10, 1, 10_000),
  /** Every scenario is measured this many times, interleaved, and compared with the baseline of its own round. */
  rounds: readIntegerEnv('BENCH_ROUNDS', 3, 1, 100),
  serverCpu: readIntegerEnv('BENCH_SERVER_CPU', 0, 0, 4_095),
  loadGeneratorCpu: readIntegerEnv('BENCH_LOADGEN_CPU', 1, 0, 4_095),
  only: (process.env.BENCH_SCENARIOS ?? '').split(',').map((name) => name.trim()).filter((name) => name !== ''),
  /** A commit whose service is measured beside the working tree's, in the same rounds (bench/README.md, "Before and after"). */
  before: process.env.BENCH_BEFORE?.trim() || null,
};
/** What a scenario measured on `BENCH_BEFORE`'s service is called: its own name and this. */
const BEFORE_SUFFIX = '@before';

let temporaryDir: string | undefined;
let planned: Pinning | undefined;
let cleaning: Promise<void> | undefined;
let interrupted = false;
/** Run after the children are stopped: the PostgreSQL databases made for the run are dropped. */
const dropAfterRun: (() => Promise<void>)[] = [];

/** Stops every child and removes the temporary directory; safe to call more than once. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAllChildren();
    for (const drop of dropAfterRun) await drop().catch((error: unknown) => process.stderr.write(`bench: ${String(error)}\n`));
    if (temporaryDir !== undefined) await rm(temporaryDir, { recursive: true, force: true });
  })();
  return cleaning;
}

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\nbench: ${signal}, stopping the servers and the load generator…\n`);
    cleanup().finally(() => process.exit(code));
  });
}

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function main(): Promise<void> {
  const httpOnly = settings.only.filter((name) => name !== SIGN_IN && name !== SIGN_IN_CONTENTION && name !== SIGN_IN_FLOOD && name !== FAN_OUT && !LONG_RUN_NAMES.includes(name));
  // `BENCH_SCENARIOS=sign-in` alone still measures the baseline (loadScenarios always keeps it).
  const loaded = await loadScenarios(join(benchDir, 'scenarios'), settings.only.length > 0 && httpOnly.length === 0 ? [BASELINE_SCENARIO] : httpOnly);
  const scenarios = settings.before === null ? loaded : withScenariosBefore(loaded, settings.before);
  const pinning = planPinning(settings.serverCpu, settings.loadGeneratorCpu);
  planned = pinning;
  if (pinning.note !== null) log(`NOTE: ${pinning.note}`);
  else log(`pinning: servers on core ${pinning.serverCpu}, load generator on core ${pinning.loadGeneratorCpu}`);

  const signInSelected = settings.only.length === 0 || settings.only.includes(SIGN_IN);
  const contentionSelected = settings.only.length === 0 || settings.only.includes(SIGN_IN_CONTENTION);
  const floodSelected = settings.only.length === 0 || settings.only.includes(SIGN_IN_FLOOD);
  const fanOutSelected = settings.only.length === 0 || settings.only.includes(FAN_OUT);
  // The service runs only when something measures it; the GraphQL peers only when a scenario loads them.
  const longRunsSelected = LONG_RUN_NAMES.filter((name) => settings.only.length === 0 || settings.only.includes(name));
  const needsService = signInSelected || contentionSelected || floodSelected || fanOutSelected || longRunsSelected.length > 0 || scenarios.some((scenario) => scenario.target === 'gatehouse');
  const needsPostgres = longRunsSelected.includes('mixed-postgres') || scenarios.some((scenario) => scenario.target === 'gatehouse-postgres');
  const peerTargets = [...new Set(scenarios.map((scenario) => scenario.target).filter(isPeerTarget))];
  const hostTargets = [...new Set(scenarios.map((scenario) => scenario.target).filter(isHostTarget))];
  const hostBareTargets = [...new Set(scenarios.map((scenario) => scenario.target).filter(isHostBareTarget))];
  temporaryDir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-'));
  const needsBefore = settings.before !== null && (fanOutSelected || scenarios.some((scenario) => scenario.target === 'gatehouse-before'));
  const revision = needsBefore ? await buildRevision(root, settings.before!, join(temporaryDir, 'before', 'tree'), log) : null;

  const barePort = await freePort(HOST);
  const peerIssuerOfRun = peerTargets.length > 0 ? await peerIssuer() : null;
  // Every server runs for the whole run, side by side on the server core; one is loaded at a time.
  const postgresDatabase = needsPostgres ? await freshPostgresDatabase() : null;
  if (postgresDatabase !== null) dropAfterRun.push(() => postgresDatabase.drop());
  const [hostServices, hostBares] = await Promise.all([
    Promise.all(hostTargets.map((target) => startService(join(temporaryDir!, `${target}.db`), target, root, HOSTS[target].framework))),
    Promise.all(hostBareTargets.map((target) => startBare(target))),
  ]);
  const [service, beforeService, postgresService, bare, ...peers] = await Promise.all([
    needsService ? startService() : Promise.resolve(null),
    revision !== null ? startService(join(temporaryDir, 'before', 'gatehouse.db'), 'gatehouse-before', revision.root) : Promise.resolve(null),
    postgresDatabase !== null ? startService(postgresDatabase.url, 'gatehouse-postgres') : Promise.resolve(null),
    startServer({
      name: 'bare fastify',
      command: process.execPath,
      args: ['--import', 'tsx', join(benchDir, 'servers/bare-fastify.ts')],
      env: { ...process.env, HOST, PORT: String(barePort) },
      cwd: root,
      cpu: pinning.serverCpu,
      readyUrl: `http://${HOST}:${barePort}/hello`,
    }),
    ...peerTargets.map((target) => startPeer(target, { root, host: HOST, cpu: pinning.serverCpu, issuer: peerIssuerOfRun! })),
  ]);
  const servers: Partial<Record<Target, { server: Server; baseUrl: string }>> = { bare: { server: bare, baseUrl: `http://${HOST}:${barePort}` } };
  if (service !== null) servers.gatehouse = service;
  if (beforeService !== null) servers['gatehouse-before'] = beforeService;
  if (postgresService !== null) servers['gatehouse-postgres'] = postgresService;
  peerTargets.forEach((target, i) => (servers[target] = peers[i]!));
  hostTargets.forEach((target, i) => (servers[target] = hostServices[i]!));
  hostBareTargets.forEach((target, i) => (servers[target] = hostBares[i]!));
  for (const [target, started] of Object.entries(servers)) log(`${target}: pid ${started.server.pid}, ${started.baseUrl}`);

  const credentials: Record<string, string> = {};
  if (service !== null) {
    credentials.accessToken = await obtainAccessToken(service.baseUrl, service.email, service.password);
    credentials.apiKey = service.apiKey;
    if (longRunsSelected.length > 0 || scenarios.some((scenario) => scenario.target === 'gatehouse' && scenario.path === '/graphql')) await seedPosts(service.baseUrl, credentials.accessToken, SEEDED_POSTS);
  }
  // The service before has users, keys and posts of its own, made the same way.
  const beforeCredentials: Record<string, string> = {};
  if (beforeService !== null) {
    beforeCredentials.accessToken = await obtainAccessToken(beforeService.baseUrl, beforeService.email, beforeService.password);
    beforeCredentials.apiKey = beforeService.apiKey;
    if (scenarios.some((scenario) => scenario.target === 'gatehouse-before' && scenario.path === '/graphql')) await seedPosts(beforeService.baseUrl, beforeCredentials.accessToken, SEEDED_POSTS);
  }
  if (peerIssuerOfRun !== null) credentials.peerToken = peerIssuerOfRun.token;
  // The PostgreSQL service has users, keys and posts of its own: its scenarios get its credentials.
  const postgresCredentials: Record<string, string> = {};
  if (postgresService !== null) {
    postgresCredentials.accessToken = await obtainAccessToken(postgresService.baseUrl, postgresService.email, postgresService.password);
    postgresCredentials.apiKey = postgresService.apiKey;
    await seedPosts(postgresService.baseUrl, postgresCredentials.accessToken, SEEDED_POSTS);
  }

  // Each other host's service has users, keys and posts of its own, made the same way.
  const hostCredentials = new Map<Target, Record<string, string>>();
  for (const [i, target] of hostTargets.entries()) {
    const started = hostServices[i]!;
    const accessToken = await obtainAccessToken(started.baseUrl, started.email, started.password);
    hostCredentials.set(target, { accessToken, apiKey: started.apiKey });
    if (scenarios.some((scenario) => scenario.target === target && scenario.path === '/graphql')) await seedPosts(started.baseUrl, accessToken, SEEDED_POSTS);
  }

  // Every scenario must answer as expected once before anything is measured.
  const credentialsOf = (target: Target) =>
    target === 'gatehouse-postgres' ? postgresCredentials : target === 'gatehouse-before' ? beforeCredentials : (hostCredentials.get(target) ?? credentials);
  const plans = scenarios.map((scenario) => ({
    scenario,
    request: resolveRequest(scenario, credentialsOf(scenario.target)),
    ...servers[scenario.target]!,
  }));
  for (const { scenario, request, baseUrl, server } of plans) {
    const response = await fetch(new URL(request.path, baseUrl), {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.text();
    if (response.status !== 200) {
      throw new Error(
        `check failed: ${scenario.name} (${request.method} ${request.path}) answered ${response.status}, ` +
          `expected 200: ${body.slice(0, 500)}\n${server.name} output:\n${server.output()}`,
      );
    }
    log(`check ${scenario.name}: ${response.status} ${JSON.stringify(body.slice(0, 60))}`);
  }

  // Rounds interleave the scenarios, so that a burst of load from elsewhere on the machine hits
  // one round of each rather than every measurement of one; each ratio is taken against the
  // baseline of its own round, and the median round is reported.
  const rounds: Map<string, Measured>[] = [];
  const serverPids = Object.values(servers).map(({ server }) => server.pid);
  for (let round = 1; round <= settings.rounds; round++) {
  const measured = new Map<string, Measured>();
  rounds.push(measured);
  for (const { scenario, request, baseUrl, server } of plans) {
    const load = { baseUrl, request, connections: settings.connections, cpu: pinning.loadGeneratorCpu, cwd: root };
    if (settings.warmupSeconds > 0 && round === 1) {
      log(`${scenario.name}: warming up ${settings.warmupSeconds} s…`);
      const warm = await runLoad({ ...load, seconds: settings.warmupSeconds });
      assertClean(scenario.name, 'warm-up', warm, server);
    }
    log(`${scenario.name}: measuring ${settings.seconds} s (round ${round} of ${settings.rounds})…`);
    const before = cpuSnapshot(serverPids);
    const serverBefore = processCpuSeconds(server.pid);
    const result = await runLoad({ ...load, seconds: settings.seconds });
    const otherCpu = otherCpuPercent(before, cpuSnapshot(serverPids));
    const serverAfter = processCpuSeconds(server.pid);
    const serverCpuUs = serverBefore === null || serverAfter === null || result.totalRequests === 0 ? null : ((serverAfter - serverBefore) * 1e6) / result.totalRequests;
    assertClean(scenario.name, 'measurement', result, server);
    if (otherCpu !== null && otherCpu > OTHER_CPU_WARNING) {
      log(`NOTE: other processes used ${otherCpu.toFixed(0)}% of a core during ${scenario.name}: its figures are low and noisy`);
    }
    measured.set(scenario.name, { result, otherCpu, serverCpuUs });
  }
  }

  const scenarioResults: ScenarioResult[] = scenarios.map((scenario) => {
    const { entry, ratio } = medianRound(rounds, scenario);
    const { result, otherCpu, serverCpuUs } = entry;
    return {
      name: scenario.name,
      description: scenario.description,
      target: scenario.target,
      requestsPerSecond: round(result.requestsPerSecond, 1),
      latencyP50Ms: round(result.latencyP50Ms, 3),
      latencyP99Ms: round(result.latencyP99Ms, 3),
      non2xx: result.non2xx,
      ratioToBare: round(ratio, 3),
      otherCpuPercent: otherCpu === null ? null : round(otherCpu, 1),
      serverCpuUsPerRequest: serverCpuUs === null ? null : round(serverCpuUs, 1),
    };
  });

  /** What every sign-in measurement takes: the service, its user, and the run's settings and cores. */
  const signInRun = (target: NonNullable<typeof service>) => ({
    root,
    host: HOST,
    baseUrl: target.baseUrl,
    email: target.email,
    password: target.password,
    seconds: settings.seconds,
    warmupSeconds: settings.signInWarmupSeconds,
    rounds: settings.rounds,
    connections: settings.connections,
    serverCpu: pinning.serverCpu,
    loadGeneratorCpu: pinning.loadGeneratorCpu,
    log,
  });

  let signIn: SignInResult | null = null;
  if (signInSelected && service !== null) {
    signIn = await measureSignIn(signInRun(service));
  }

  let signInContention: ContentionResult | null = null;
  if (contentionSelected && service !== null) {
    signInContention = await measureSignInContention({ ...signInRun(service), accessToken: credentials.accessToken! });
  }

  let signInFlood: FloodResult | null = null;
  if (floodSelected && service !== null) {
    signInFlood = await measureSignInFlood(signInRun(service));
  }

  const fanOutOf = (target: NonNullable<typeof service>, accessToken: string) =>
    measureFanOutRound({
      root,
      baseUrl: target.baseUrl,
      accessToken,
      serverPid: target.server.pid,
      loadGeneratorCpu: pinning.loadGeneratorCpu,
      // Every round warms up: its 1,000 sockets are new, and the first events to new sockets cost
      // several times a warm event (bench/README.md, "Fan-out rounds").
      warmupSeconds: settings.warmupSeconds,
    });
  let fanOut: FanOutResult | null = null;
  let fanOutBefore: FanOutResult | null = null;
  if (fanOutSelected && service !== null) {
    // The fan-out runs in rounds too, the services taking turns to go first: a p99 of one round's
    // 100 events is its second slowest event, which one pause of the machine moves by tens of percent.
    const now: FanOutRound[] = [];
    const before: FanOutRound[] = [];
    for (let round = 1; round <= settings.rounds; round++) {
      const sides = [
        { label: 'fan-out', measure: () => fanOutOf(service, credentials.accessToken!), rounds: now },
        ...(beforeService === null
          ? []
          : [{ label: `fan-out before (${settings.before})`, measure: () => fanOutOf(beforeService, beforeCredentials.accessToken!), rounds: before }]),
      ];
      if (round % 2 === 1) sides.reverse();
      for (const side of sides) {
        log(`${side.label}: 1,000 subscribers, 100 posts one every 20 ms (round ${round} of ${settings.rounds})…`);
        side.rounds.push(await side.measure());
      }
    }
    fanOut = combineFanOutRounds(now);
    if (beforeService !== null) fanOutBefore = combineFanOutRounds(before);
  }

  let longRuns: LongRunResults | null = null;
  if (longRunsSelected.length > 0) {
    longRuns = await measureLongRuns(longRunsSelected, {
      root,
      sqlite: service!,
      postgres: postgresService,
      startFreshService: () => startService(join(temporaryDir!, `fresh-${randomBytes(4).toString('hex')}.db`), 'gatehouse (fresh)'),
      loadGeneratorCpu: pinning.loadGeneratorCpu,
      log,
    });
  }

  const cpuList = cpus();
  const results: Results = {
    date: new Date().toISOString(),
    node: process.version,
    machine: {
      cores: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      platform: process.platform,
      arch: process.arch,
    },
    settings: {
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      connections: settings.connections,
      rounds: settings.rounds,
      pinning:
        pinning.serverCpu === null || pinning.loadGeneratorCpu === null
          ? null
          : { serverCpu: pinning.serverCpu, loadGeneratorCpu: pinning.loadGeneratorCpu },
      pinningNote: pinning.note,
      loadGenerator: `autocannon ${autocannonVersion}`,
      database: postgresService === null ? 'SQLite (fresh temporary file)' : 'SQLite (fresh temporary file); PostgreSQL (a fresh database) for the `-postgres` scenarios',
      logLevel: LOG_LEVEL,
      before: revision === null ? null : { ref: revision.ref, commit: revision.commit },
    },
    scenarios: scenarioResults,
    beforeAndAfter: beforeAndAfter(rounds, scenarios),
    signIn,
    signInContention,
    signInFlood,
    fanOut,
    fanOutBefore,
    longRuns,
  };

  await mkdir(join(benchDir, 'results'), { recursive: true });
  await writeAtomically(join(benchDir, 'results/latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  await updateReadme(join(benchDir, 'README.md'), markdownTable(results));
  log('');
  log(textTable(results));
  log('');
  log('wrote bench/results/latest.json and the table in bench/README.md');
}

/**
 * The service as `npm start` runs it, on a fresh SQLite database with one confirmed user and one
 * API key made through the CLI (bench/README.md, "How").
 */
async function startService(
  database: string = join(temporaryDir!, 'gatehouse.db'),
  name = 'gatehouse',
  serviceRoot: string = root,
  framework = 'fastify',
): Promise<{ server: Server; baseUrl: string; email: string; password: string; apiKey: string }> {
  const email = 'bench@example.test';
  const password = randomBytes(18).toString('base64url');
  const port = await freePort(HOST);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    FRAMEWORK: framework,
    HOST,
    PORT: String(port),
    DATABASE_URL: /^postgres(ql)?:/.test(database) ? database : `sqlite:${database}`,
    KEYRING_SECRET: randomBytes(32).toString('base64'),
    LOG_LEVEL,
    ACCESS_TOKEN_MINUTES: '60',
    // The sign-in measurement signs one account in as fast as the hash allows: limits off.
    RATE_LIMIT_ACCOUNT_PER_MINUTE: '0',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    // The fan-out and the soak open 1,000 sockets for one user from one address: the per-user and
    // per-address socket caps (decision 0064) would close all but the first 20 with 4429.
    GRAPHQL_MAX_SOCKETS_PER_USER: '5000',
    GRAPHQL_MAX_SOCKETS_PER_IP: '5000',
  };
  log(`database: ${env.DATABASE_URL}`);
  await gatehouseCli(serviceRoot, env, ['users', 'add', '--email', email, '--password', password, '--name', 'bench-user', '--confirmed']);
  const apiKey = await gatehouseCli(serviceRoot, env, ['apikeys', 'create', '--client', 'bench']);
  const server = await startServer({
    name,
    command: process.execPath,
    args: serviceArguments(serviceRoot),
    env,
    cwd: serviceRoot,
    cpu: planned!.serverCpu,
    readyUrl: `http://${HOST}:${port}/health`,
    timeoutMs: 60_000,
  });
  return { server, baseUrl: `http://${HOST}:${port}`, email, password, apiKey };
}

/** A framework's bare server (lib/hosts.ts), pinned like the others. */
async function startBare(target: HostBareTarget): Promise<{ server: Server; baseUrl: string }> {
  const port = await freePort(HOST);
  const { file, env } = bareServerOf(target);
  const server = await startServer({
    name: target,
    command: process.execPath,
    args: ['--import', 'tsx', join(benchDir, file)],
    env: { ...process.env, ...env, HOST, PORT: String(port) },
    cwd: root,
    cpu: planned!.serverCpu,
    readyUrl: `http://${HOST}:${port}/hello`,
  });
  return { server, baseUrl: `http://${HOST}:${port}` };
}

function assertClean(name: string, phase: string, result: LoadResult, server: Server): void {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && result.totalRequests > 0) return;
  throw new Error(
    `${name} ${phase}: ${result.totalRequests} requests, ${result.non2xx} non-2xx ` +
      `(${JSON.stringify(result.statusClasses)}), ${result.errors} errors, ${result.timeouts} timeouts; all must be 0 ` +
      `and some requests must be made.\n${server.name} output:\n${server.output()}`,
  );
}

/** One scenario's measurement in one round. */
interface Measured {
  readonly result: LoadResult;
  readonly otherCpu: number | null;
  /** The loaded server's CPU time per answered request, µs. */
  readonly serverCpuUs: number | null;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  if (!interrupted) process.stderr.write(`\nbench FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = interrupted ? 130 : 1;
} finally {
  await cleanup();
  if (liveChildren() > 0) process.stderr.write(`bench: ${liveChildren()} child process(es) still running after cleanup\n`);
}
process.exit(exitCode);

/** The round whose ratio to its own baseline (bare Fastify's, or its framework's bare route) is the median of the scenario's rounds. */
function medianRound(rounds: Map<string, Measured>[], scenario: Scenario): { entry: Measured; ratio: number } {
  const { name } = scenario;
  const candidates = rounds.map((measured) => {
    const baseline = measured.get(baselineOf(scenario))?.result;
    const entry = measured.get(name);
    if (baseline === undefined || baseline.requestsPerSecond <= 0) throw new Error('the baseline measured no requests');
    if (entry === undefined) throw new Error(`no result for ${name}`);
    return { entry, ratio: entry.result.requestsPerSecond / baseline.requestsPerSecond };
  });
  return candidates[medianIndex(candidates.map((candidate) => candidate.ratio))]!;
}

/**
 * Each scenario of the service followed by its twin on the service before, so that the two are
 * measured back to back in every round and a burst of load from elsewhere hits both.
 */
function withScenariosBefore(scenarios: readonly Scenario[], ref: string): Scenario[] {
  return scenarios.flatMap((scenario) =>
    scenario.target === 'gatehouse'
      ? [scenario, { ...scenario, name: `${scenario.name}${BEFORE_SUFFIX}`, description: `${scenario.description}, at ${ref}`, target: 'gatehouse-before' as const }]
      : [scenario],
  );
}

/**
 * Each scenario against its twin before: the median over rounds of the round's ratio (requests/s
 * now over requests/s before), and of the server CPU per request now over before.
 */
function beforeAndAfter(rounds: Map<string, Measured>[], scenarios: readonly Scenario[]): BeforeAndAfter[] {
  return scenarios
    .filter((scenario) => scenario.target === 'gatehouse-before')
    .map((twin) => {
      const name = twin.name.slice(0, -BEFORE_SUFFIX.length);
      const pairs = rounds.map((measured) => ({ now: measured.get(name)!, before: measured.get(twin.name)! }));
      const throughput = pairs.map(({ now, before }) => now.result.requestsPerSecond / before.result.requestsPerSecond);
      const cpu = pairs.flatMap(({ now, before }) => (now.serverCpuUs === null || before.serverCpuUs === null ? [] : [now.serverCpuUs / before.serverCpuUs]));
      return {
        name,
        throughputRatio: round(median(throughput), 3),
        throughputRatios: throughput.map((ratio) => round(ratio, 3)),
        cpuPerRequestRatio: cpu.length === 0 ? null : round(median(cpu), 3),
      };
    });
}

function median(values: readonly number[]): number {
  return values[medianIndex(values)]!;
}
