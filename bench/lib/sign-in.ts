import { join } from 'node:path';
import { type LoadResult, runLoad } from './autocannon.ts';
import { runToCompletion } from './processes.ts';

export interface SignInSettings {
  readonly root: string;
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
  readonly seconds: number;
  readonly connections: number;
  readonly serverCpu: number | null;
  readonly loadGeneratorCpu: number | null;
}

export interface SignInResult {
  /** Successful `POST /account/login` (a cookie sign-in with a password), per second. */
  readonly signInsPerSecond: number;
  /** Argon2id verifications per second of the servers' core, measured alone in the same run. */
  readonly verifiesPerSecond: number;
  readonly ratioToVerifyRate: number;
  /** `/health` at a steady 100 requests/s while the sign-ins run. */
  readonly healthP50Ms: number;
  readonly healthP99Ms: number;
  readonly signInNon2xx: number;
}

/** Requests/s of `/health` alongside the sign-ins: enough for a p99, too few to matter to the core. */
const HEALTH_RATE = 100;

/**
 * Sign-in throughput against the Argon2id verify rate (SPEC section 11): first the verify rate of
 * the servers' core, with the service's own hasher, alone; then password sign-ins on the service
 * for as long, with `/health` requested at a steady rate meanwhile, whose latency shows whether
 * hashing starves the event loop. Sign-ins are bound by the hash, so the ratio says how much the
 * rest of a sign-in (look-up, failure counter, audit row, session, cookie) costs on top.
 */
export async function measureSignIn(settings: SignInSettings): Promise<SignInResult> {
  const verifiesPerSecond = await measureVerifyRate(settings);
  const body = JSON.stringify({ email: settings.email, password: settings.password });
  const load = { baseUrl: settings.baseUrl, seconds: settings.seconds, cpu: settings.loadGeneratorCpu, cwd: settings.root };
  const [signIns, health] = await Promise.all([
    runLoad({
      ...load,
      connections: settings.connections,
      request: { method: 'POST', path: '/account/login', headers: { 'content-type': 'application/json' }, body },
    }),
    runLoad({ ...load, connections: 1, rate: HEALTH_RATE, request: { method: 'GET', path: '/health', headers: {}, body: undefined } }),
  ]);
  assertClean('sign-in', signIns);
  assertClean('health under sign-in load', health);
  return {
    signInsPerSecond: signIns.requestsPerSecond,
    verifiesPerSecond,
    ratioToVerifyRate: signIns.requestsPerSecond / verifiesPerSecond,
    healthP50Ms: health.latencyP50Ms,
    healthP99Ms: health.latencyP99Ms,
    signInNon2xx: signIns.non2xx,
  };
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
