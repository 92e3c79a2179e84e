import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pinned } from './pinning.ts';

// Every child the bench starts is tracked here, so that it can be stopped on success, on failure
// and on Ctrl-C, and killed outright if the orchestrator exits anyway.

const live = new Set<ChildProcess>();

function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
}

process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (exited(child) || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (exited(child) || child.pid === undefined) return;
  const gone = waitForExit(child);
  child.kill('SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout' as const);
  if ((await Promise.race([gone.then(() => 'gone' as const), timer])) === 'timeout') {
    child.kill('SIGKILL');
    await gone;
  }
}

/** Stops every child still running. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((child) => stopChild(child)));
}

/** The number of children still running (0 after `stopAllChildren`). */
export function liveChildren(): number {
  return live.size;
}

/** Keeps the last `limit` characters a child wrote, for error messages. */
class Tail {
  #text = '';
  constructor(private readonly limit = 4_000) {}
  push(chunk: Buffer | string): void {
    this.#text = (this.#text + chunk.toString()).slice(-this.limit);
  }
  toString(): string {
    return this.#text.trim();
  }
}

export interface ServerOptions {
  /** For messages: `gatehouse`, `bare fastify`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Core to pin to, or `null`. */
  readonly cpu: number | null;
  /** Polled until it answers 200. */
  readonly readyUrl: string;
  readonly timeoutMs?: number;
}

export interface Server {
  readonly name: string;
  readonly pid: number;
  /** What the server wrote to stdout and stderr lately. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts a long-running server, pinned, and resolves once `readyUrl` answers 200. */
export async function startServer(options: ServerOptions): Promise<Server> {
  const { command, args } = pinned(options.cpu, options.command, options.args);
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  track(child);
  const tail = new Tail();
  child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });

  const server: Server = {
    name: options.name,
    pid: child.pid ?? -1,
    output: () => tail.toString() || '(no output)',
    stop: () => stopChild(child),
  };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (spawnError !== undefined) throw new Error(`${options.name}: could not start ${command}: ${spawnError.message}`);
    if (exited(child)) {
      throw new Error(`${options.name} exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready:\n${tail}`);
    }
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${options.name} was not ready at ${options.readyUrl} within ${options.timeoutMs ?? 30_000} ms:\n${tail}`);
    }
    try {
      const response = await fetch(options.readyUrl, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return server;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
}

export interface Completed {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to completion (tracked, so Ctrl-C stops it too); rejects on a non-zero exit. */
export function runToCompletion(
  name: string,
  command: string,
  args: readonly string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd: string; readonly cpu?: number | null },
): Promise<Completed> {
  const spec = pinned(options.cpu ?? null, command, args);
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
    const stdout: Buffer[] = [];
    const stderr = new Tail();
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error) => reject(new Error(`${name}: could not start ${spec.command}: ${error.message}`)));
    child.once('close', (code, signal) => {
      const out = Buffer.concat(stdout).toString();
      if (code === 0) resolve({ stdout: out, stderr: stderr.toString() });
      else reject(new Error(`${name} failed (code ${code}, signal ${signal}):\n${stderr}\n${out.slice(-2_000)}`.trim()));
    });
  });
}
