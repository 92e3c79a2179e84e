/**
 * Real processes for black-box tests: the `gatehouse` CLI and the service itself, spawned as a
 * user would run them (`node bin/gatehouse.js …`, the service as `npm start` runs it), with their
 * output collected and every child killed on teardown, even when a test fails.
 *
 *   useProcessCleanup();                                   // once per file: kills leftovers after each test
 *   const result = await runCli(['users', 'list'], { DATABASE_URL });   // { code, stdout, stderr }
 *   const service = await startService({ DATABASE_URL, PORT: '0' });   // waits for the listening line
 *   await fetch(`${service.url}/health`);
 *   await service.stop();                                  // SIGTERM, then SIGKILL; resolves once it is gone
 *
 * Both run the compiled build in dist/ (`npm test` builds it first). Each spawn costs a few hundred
 * milliseconds: spawn what a test needs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';

export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How long a CLI command or a service start may take before the test gives up on it. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** How long a stopped process has to exit after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 5_000;

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface RunResult extends Exit {
  readonly stdout: string;
  readonly stderr: string;
}

/** A running child: its output so far, its exit, and ways to wait on it or stop it. */
export interface ChildHandle {
  readonly child: ChildProcess;
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<Exit>;
  hasExited(): boolean;
  /** The first line of stdout or stderr matching `pattern`; rejects when the process exits first or on timeout. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after a grace period; resolves with the exit once the process is gone. */
  stop(): Promise<Exit>;
}

const live = new Set<ChildHandle>();

/**
 * Spawns `node <args>` in the project root with `env` on top of this process's environment;
 * `stdin`, when given, is written to its standard input, which is then closed.
 */
export function spawnNode(args: readonly string[], env: Record<string, string | undefined> = {}, stdin?: string): ChildHandle {
  const child = spawn(process.execPath, [...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`could not spawn node ${args.join(' ')}`);
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  let exit: Exit | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    notify();
  });
  // 'close' (not 'exit'): the output streams are drained by then.
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      exit = { code, signal };
      live.delete(handle);
      notify();
      resolve(exit);
    });
  });

  const handle: ChildHandle = {
    child,
    pid: child.pid,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    hasExited: () => exit !== undefined,
    waitForLine(pattern, timeoutMs = DEFAULT_TIMEOUT_MS) {
      return new Promise<string>((resolve, reject) => {
        const check = () => {
          const line = [...completeLines(stdout, exit !== undefined), ...completeLines(stderr, exit !== undefined)].find((text) => pattern.test(text));
          if (line !== undefined) return finish(() => resolve(line));
          if (exit !== undefined) {
            finish(() => reject(new Error(`node ${args.join(' ')} exited (${describeExit(exit!)}) before printing ${pattern}\n${output()}`)));
          }
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`node ${args.join(' ')} printed no ${pattern} within ${timeoutMs} ms\n${output()}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (exit !== undefined) return exit;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      const result = await exited;
      clearTimeout(killer);
      return result;
    },
  };
  const output = () => `--- stdout ---\n${stdout}--- stderr ---\n${stderr}`;
  live.add(handle);
  return handle;
}

/** Runs `node <args>` to its end; kills it and rejects after `timeoutMs`. */
export async function runNode(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = DEFAULT_TIMEOUT_MS,
  stdin?: string,
): Promise<RunResult> {
  const handle = spawnNode(args, env, stdin);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      void handle.stop();
      reject(new Error(`node ${args.join(' ')} did not finish within ${timeoutMs} ms\n${handle.stdout()}${handle.stderr()}`));
    }, timeoutMs);
  });
  try {
    const exit = await Promise.race([handle.exited, timeout]);
    return { ...exit, stdout: handle.stdout(), stderr: handle.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** `gatehouse <args>` as `npx gatehouse` runs it: `node bin/gatehouse.js <args>`, fed `stdin` when given. */
export function runCli(args: readonly string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<RunResult> {
  return runNode(['bin/gatehouse.js', ...args], env, DEFAULT_TIMEOUT_MS, stdin);
}

/** Spawns the service as `npm start` does (package.json's start script), without waiting. */
export function spawnService(env: Record<string, string | undefined>): ChildHandle {
  return spawnNode(serviceArguments(projectRoot), env);
}

export interface RunningService {
  readonly handle: ChildHandle;
  /** `http://host:port` from the service's own listening line. */
  readonly url: string;
  stop(): Promise<Exit>;
}

const LISTENING = /Gatehouse listening on (http:\/\/[^\s"]+)/;

/** Waits for a spawned service's listening line; the URL is the one it logged. */
export async function serviceListening(handle: ChildHandle, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RunningService> {
  const line = await handle.waitForLine(LISTENING, timeoutMs);
  const url = LISTENING.exec(line)![1]!;
  return { handle, url, stop: () => handle.stop() };
}

/** Starts the service and waits until it listens and answers `GET /health` with 200. */
export async function startService(env: Record<string, string | undefined>, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RunningService> {
  const handle = spawnService(env);
  try {
    const service = await serviceListening(handle, timeoutMs);
    await waitUntil(async () => (await fetch(`${service.url}/health`)).status === 200, {
      timeoutMs: 5_000,
      what: `${service.url}/health to answer 200`,
    });
    return service;
  } catch (error) {
    await handle.stop();
    throw error;
  }
}

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      server.close(() => resolve(address.port));
    });
  });
}

/**
 * Polls `condition` until it holds (returns true) or the deadline passes; no fixed sleeps.
 * A condition that throws counts as not yet; the last error is reported on timeout.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs, intervalMs = 100, what }: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Whether a process with this pid still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops every child this file spawned that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((handle) => handle.stop()));
}

/** Kills leftover children after each test (a failed test may leave one) and after the file. */
export function useProcessCleanup({ afterEachTest = true }: { afterEachTest?: boolean } = {}): void {
  if (afterEachTest) afterEach(stopAll);
  afterAll(stopAll);
}

// Last resort: a test process that dies takes its children with it.
process.once('exit', () => {
  for (const handle of live) handle.child.kill('SIGKILL');
});

/** Lines ended by a newline (a chunk may stop mid-line), and the last one too once the stream is over. */
function completeLines(text: string, ended = false): string[] {
  const lines = text.split('\n');
  const last = lines.pop()!;
  return ended && last !== '' ? [...lines, last] : lines;
}

function describeExit(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}
