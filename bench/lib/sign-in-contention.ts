import { type LoadResult, runLoad } from './autocannon.ts';
import { medianIndex } from './percentile.ts';
import { probeLatency, type SignInSettings, signInLoad } from './sign-in.ts';

export interface ContentionSettings extends SignInSettings {
  /** A bearer token of the service, for `GET /me`. */
  readonly accessToken: string;
}

/** One round: sign-ins beside a saturating `GET /me` load, then `/health` beside a sign-in load. */
export interface ContentionRound {
  /** `POST /account/login` at a steady `SIGN_IN_RATE`, one at a time, while `GET /me` saturates the core. */
  readonly signInP50Ms: number;
  readonly signInP99Ms: number;
  readonly signInMaxMs: number;
  /** `GET /me` meanwhile, per second. */
  readonly meRequestsPerSecond: number;
  /** `/health` at 100/s while sign-ins run as fast as they go (as the sign-in scenario probes it). */
  readonly healthP50Ms: number;
  readonly healthP99Ms: number;
  readonly signInsPerSecond: number;
}

/** The round with the median sign-in p99, with every round for the record. */
export interface ContentionResult extends ContentionRound {
  readonly signInRate: number;
  readonly rounds: readonly ContentionRound[];
  readonly medianRound: number;
}

/**
 * Sign-ins a second beside the `GET /me` load: few enough that the hashing they need (~5–12 ms of
 * a core each) is a tenth of the core or less, so their latency shows how long a hash waits for
 * the core, not a queue of sign-ins.
 */
const SIGN_IN_RATE = 10;

/** Seconds of each load, not counted, before its window (as in bench/lib/sign-in.ts). */
const SETTLE_SECONDS = 3;

/**
 * The two figures the hashing threads' priority trades against each other (decisions 0019 and
 * 0055). Hashing at a low priority lets a request that needs no hash preempt it at once, which
 * keeps `/health` fast under a sign-in load; but when requests that need no hash keep the core
 * busy (`GET /me` with a bearer token, from `connections` clients), a hash gets only the share
 * of the core its priority weighs, and each sign-in waits for it. The first window measures
 * sign-in latency at a steady `SIGN_IN_RATE` while `GET /me` saturates the core; the second,
 * `/health` at 100/s under sign-ins as fast as they go, as the sign-in scenario does.
 */
export async function measureSignInContention(settings: ContentionSettings): Promise<ContentionResult> {
  if (settings.warmupSeconds > 0) {
    settings.log(`sign-in-contention: warming up, ${settings.warmupSeconds} s of sign-ins and of GET /me…`);
    await signInLoad(settings, settings.baseUrl, settings.warmupSeconds);
    await meLoad(settings, settings.warmupSeconds);
  }
  const rounds: ContentionRound[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    settings.log(`sign-in-contention: sign-ins beside GET /me, then /health beside sign-ins, ${settings.seconds} s each (round ${round} of ${settings.rounds})…`);
    rounds.push(await measureRound(settings));
  }
  const medianRound = medianIndex(rounds.map((round) => round.signInP99Ms));
  return { ...(rounds[medianRound] as ContentionRound), signInRate: SIGN_IN_RATE, rounds, medianRound };
}

async function measureRound(settings: ContentionSettings): Promise<ContentionRound> {
  await signInsBesideMe(settings, SETTLE_SECONDS);
  const beside = await signInsBesideMe(settings, settings.seconds);
  await signInLoad(settings, settings.baseUrl, SETTLE_SECONDS);
  const underSignIns = await signInLoad(settings, settings.baseUrl, settings.seconds);
  return {
    signInP50Ms: beside.signIns.latencyP50Ms,
    signInP99Ms: beside.signIns.latencyP99Ms,
    signInMaxMs: beside.signIns.latencyMaxMs,
    meRequestsPerSecond: beside.me.requestsPerSecond,
    healthP50Ms: underSignIns.health.latencyP50Ms,
    healthP99Ms: underSignIns.health.latencyP99Ms,
    signInsPerSecond: underSignIns.signIns.requestsPerSecond,
  };
}

async function signInsBesideMe(settings: ContentionSettings, seconds: number) {
  const [me, signIns] = await Promise.all([
    meLoad(settings, seconds),
    probeLatency(settings, {
      name: 'sign-in beside GET /me',
      url: new URL('/account/login', settings.baseUrl),
      rate: SIGN_IN_RATE,
      seconds,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: settings.email, password: settings.password }),
    }),
  ]);
  return { me, signIns };
}

async function meLoad(settings: ContentionSettings, seconds: number): Promise<LoadResult> {
  const result = await runLoad({
    baseUrl: settings.baseUrl,
    cpu: settings.loadGeneratorCpu,
    cwd: settings.root,
    connections: settings.connections,
    seconds,
    request: { method: 'GET', path: '/me', headers: { authorization: `Bearer ${settings.accessToken}` }, body: undefined },
  });
  if (result.non2xx !== 0 || result.errors !== 0 || result.timeouts !== 0 || result.totalRequests === 0) {
    throw new Error(`GET /me beside sign-ins: ${result.totalRequests} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result;
}
