import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type HostBareTarget, type HostTarget, isHostBareTarget, isHostTarget } from './hosts.ts';
import { isPeerTarget, type PeerTarget } from './peers.ts';

/**
 * Which server a scenario loads: bare Fastify, the service (on SQLite, or on a fresh PostgreSQL
 * database), the service built at `BENCH_BEFORE` (its scenarios are the service's, twinned by the
 * run, never a file's), a GraphQL peer server (lib/peers.ts), or the service on another host and
 * that framework's bare server (lib/hosts.ts).
 */
export type Target = 'bare' | 'gatehouse' | 'gatehouse-postgres' | 'gatehouse-before' | PeerTarget | HostTarget | HostBareTarget;

/**
 * One HTTP load scenario, as plain data: `bench/scenarios/<name>.ts` default-exports one.
 *
 * Header values (and `body`) may hold placeholders, `{accessToken}`, `{apiKey}` or `{peerToken}`, replaced with the
 * run's credentials; the same credential is then sent with every request of the run. Every response
 * must be 200 (checked once before the load) and 2xx under load.
 */
export interface Scenario {
  /** Equal to the file's base name; used in the table and in `latest.json`. */
  readonly name: string;
  /** One line for humans. */
  readonly description: string;
  readonly target: Target;
  /** `GET` unless told. */
  readonly method?: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The scenario its ratio is taken against, measured in the same round: bare Fastify's `hello-bare` unless told (another framework's bare route). */
  readonly baseline?: string;
}

/** The scenario every ratio is taken against. */
export const BASELINE_SCENARIO = 'hello-bare';

/** Values the placeholders of a scenario expand to. */
export type Credentials = Readonly<Record<string, string>>;

/** Replaces every `{name}` in `text`; an unknown name is an error, never sent as is. */
export function expand(text: string, credentials: Credentials, where: string): string {
  return text.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (_match, key: string) => {
    const value = credentials[key];
    if (value === undefined) throw new Error(`${where}: unknown placeholder {${key}} (known: ${Object.keys(credentials).join(', ')})`);
    return value;
  });
}

/** A scenario with its placeholders expanded: what is actually sent. */
export interface ResolvedRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

export function resolveRequest(scenario: Scenario, credentials: Credentials): ResolvedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(scenario.headers)) {
    headers[name] = expand(value, credentials, `scenario ${scenario.name}, header ${name}`);
  }
  return {
    method: scenario.method ?? 'GET',
    path: scenario.path,
    headers,
    body: scenario.body === undefined ? undefined : expand(scenario.body, credentials, `scenario ${scenario.name}, body`),
  };
}

/**
 * Loads every `*.ts` file of `directory`, baseline first, then by name. `only` (names) narrows the
 * list; the baseline is always kept, since every ratio needs it.
 */
export async function loadScenarios(directory: string, only: readonly string[] = []): Promise<Scenario[]> {
  const files = (await readdir(directory)).filter((file) => file.endsWith('.ts')).sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(directory, file)).href)) as { default?: unknown };
    scenarios.push(checkScenario(module.default, file));
  }
  const unknown = only.filter((name) => !scenarios.some((scenario) => scenario.name === name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (have: ${scenarios.map((s) => s.name).join(', ')})`);
  if (!scenarios.some((scenario) => scenario.name === BASELINE_SCENARIO)) {
    throw new Error(`the baseline scenario ${BASELINE_SCENARIO} is missing from ${directory}`);
  }
  for (const scenario of scenarios) {
    if (!scenarios.some((other) => other.name === baselineOf(scenario))) throw new Error(`bench/scenarios/${scenario.name}.ts: its baseline ${baselineOf(scenario)} is not a scenario`);
  }
  // A selected scenario keeps the baseline its ratio is taken against.
  const baselines = scenarios.filter((scenario) => only.includes(scenario.name)).map(baselineOf);
  return scenarios
    .filter((scenario) => only.length === 0 || scenario.name === BASELINE_SCENARIO || only.includes(scenario.name) || baselines.includes(scenario.name))
    .sort((a, b) => Number(b.name === BASELINE_SCENARIO) - Number(a.name === BASELINE_SCENARIO));
}

/** The name of the scenario whose measurement of the same round is `scenario`'s ratio's denominator. */
export function baselineOf(scenario: Scenario): string {
  return scenario.baseline ?? BASELINE_SCENARIO;
}

function checkScenario(value: unknown, file: string): Scenario {
  const fail = (why: string): never => {
    throw new Error(`bench/scenarios/${file}: ${why}`);
  };
  if (typeof value !== 'object' || value === null) return fail('must `export default` a Scenario object');
  const scenario = value as Partial<Scenario>;
  if (scenario.name !== basename(file, '.ts')) fail(`name must be the file's base name, ${basename(file, '.ts')}`);
  const target = scenario.target ?? '';
  if (target !== 'bare' && target !== 'gatehouse' && target !== 'gatehouse-postgres' && !isPeerTarget(target) && !isHostTarget(target) && !isHostBareTarget(target)) {
    fail("target must be 'bare', 'gatehouse', 'gatehouse-postgres', 'peer-mercurius', 'peer-gatehouse', or one of lib/hosts.ts's services and bare servers");
  }
  if (typeof scenario.path !== 'string' || !scenario.path.startsWith('/')) fail('path must start with /');
  if (typeof scenario.headers !== 'object' || scenario.headers === null) fail('headers must be an object');
  if (typeof scenario.description !== 'string') fail('description must be a string');
  return scenario as Scenario;
}
