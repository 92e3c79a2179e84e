import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { medianIndex } from './percentile.ts';
import { runToCompletion } from './processes.ts';
import { type ProbeResult, probeAnswers, type SignInSettings, signInLoad } from './sign-in.ts';

/** One round: another client's sign-ins alone, then beside a flood from one address. */
export interface FloodRound {
  /** `POST /account/login` at `SIGN_IN_RATE` from `OTHER_ADDRESS`, nothing else running. */
  readonly baselineP50Ms: number;
  readonly baselineP99Ms: number;
  /** The same sign-ins while `FLOOD_ADDRESS` floods the sign-in routes. */
  readonly besideFloodP50Ms: number;
  readonly besideFloodP99Ms: number;
  readonly besideFloodMaxMs: number;
  /** The other client's sign-ins beside the flood, and how many of them were not a 200. */
  readonly otherSignIns: number;
  readonly otherRefused: number;
  /** The flood's answers a second: all of them, the hashed ones (401), the refused ones (503 or 429). */
  readonly floodPerSecond: number;
  readonly floodHashedPerSecond: number;
  readonly floodRefusedPerSecond: number;
}

/** The round with the median p99 beside the flood, with every round for the record. */
export interface FloodResult extends FloodRound {
  readonly signInRate: number;
  readonly floodConnections: number;
  readonly rounds: readonly FloodRound[];
  readonly medianRound: number;
}

/**
 * The other client's sign-ins a second: a few people signing in, far below what a core hashes even
 * on a machine busy with other work, so that alone they never queue behind one another and their
 * latency beside the flood shows what the flood costs them.
 */
const SIGN_IN_RATE = 2;
/**
 * The flood's connections, each sending its next sign-in as soon as the last is answered: more than
 * one thread holds and the default queue bound admit together (8 + 32 per thread), so the queue
 * stays full and the flood is refused for as long as it lasts.
 */
const FLOOD_CONNECTIONS = 64;
/** Two clients by address: the service listens on 127.0.0.1, and all of 127/8 is the loopback. */
const FLOOD_ADDRESS = '127.0.0.2';
const OTHER_ADDRESS = '127.0.0.3';
/** Seconds of flood before the other client's sign-ins are measured: the queue is full by then. */
const SETTLE_SECONDS = 3;

/**
 * One client cannot starve everybody's sign-in (decision 0066). One address floods the sign-in
 * routes with wrong passwords from `FLOOD_CONNECTIONS` connections, with the rate limits off as
 * the bench runs the service (a flood inside any budget that lets a second's worth of sign-ins
 * through fills the queue all the same), while another address signs in at a steady rate; the
 * same sign-ins alone are the baseline. The report shows both sides: the flood's refusals, and
 * the other client's latency and refusals beside it.
 */
export async function measureSignInFlood(settings: SignInSettings): Promise<FloodResult> {
  if (settings.warmupSeconds > 0) {
    settings.log(`sign-in-flood: warming up, ${settings.warmupSeconds} s of sign-ins…`);
    await signInLoad(settings, settings.baseUrl, settings.warmupSeconds);
  }
  const rounds: FloodRound[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    settings.log(`sign-in-flood: sign-ins alone, then beside a flood from one address, ${settings.seconds} s each (round ${round} of ${settings.rounds})…`);
    rounds.push(await measureRound(settings));
  }
  const medianRound = medianIndex(rounds.map((round) => round.besideFloodP99Ms));
  return { ...(rounds[medianRound] as FloodRound), signInRate: SIGN_IN_RATE, floodConnections: FLOOD_CONNECTIONS, rounds, medianRound };
}

async function measureRound(settings: SignInSettings): Promise<FloodRound> {
  const baseline = await otherSignIns(settings);
  const [flood, beside] = await Promise.all([
    runFlood(settings, SETTLE_SECONDS + settings.seconds),
    delay(SETTLE_SECONDS * 1000).then(() => otherSignIns(settings)),
  ]);
  const seconds = SETTLE_SECONDS + settings.seconds;
  const refused = (flood.statuses['503'] ?? 0) + (flood.statuses['429'] ?? 0);
  return {
    baselineP50Ms: baseline.latencyP50Ms,
    baselineP99Ms: baseline.latencyP99Ms,
    besideFloodP50Ms: beside.latencyP50Ms,
    besideFloodP99Ms: beside.latencyP99Ms,
    besideFloodMaxMs: beside.latencyMaxMs,
    otherSignIns: beside.requests,
    otherRefused: beside.non2xx + beside.errors,
    floodPerSecond: flood.requests / seconds,
    floodHashedPerSecond: (flood.statuses['401'] ?? 0) / seconds,
    floodRefusedPerSecond: refused / seconds,
  };
}

function otherSignIns(settings: SignInSettings): Promise<ProbeResult> {
  return probeAnswers(settings, {
    name: 'sign-in of another address',
    url: new URL('/account/login', settings.baseUrl),
    rate: SIGN_IN_RATE,
    seconds: settings.seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: settings.email, password: settings.password }),
    localAddress: OTHER_ADDRESS,
  });
}

interface FloodOutcome {
  readonly requests: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly errors: number;
}

async function runFlood(settings: SignInSettings, seconds: number): Promise<FloodOutcome> {
  const { stdout } = await runToCompletion('sign-in flood', process.execPath, ['--import', 'tsx', join(settings.root, 'bench/flood-client.ts')], {
    env: {
      ...process.env,
      FLOOD_URL: settings.baseUrl,
      FLOOD_CONNECTIONS: String(FLOOD_CONNECTIONS),
      FLOOD_SECONDS: String(seconds),
      FLOOD_LOCAL_ADDRESS: FLOOD_ADDRESS,
    },
    cwd: settings.root,
    cpu: settings.loadGeneratorCpu,
  });
  const line = stdout.trim().split('\n').pop() ?? '';
  const outcome = JSON.parse(line) as Partial<FloodOutcome>;
  if (typeof outcome.requests !== 'number' || typeof outcome.statuses !== 'object') throw new Error(`sign-in flood: unexpected output ${line}`);
  return outcome as FloodOutcome;
}
