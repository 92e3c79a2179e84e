/**
 * A private redis-server for tests that stop and start Redis (the machine's shared one is never
 * touched): on a free port, without persistence, killed with the test file.
 *
 *   const redis = new RedisServer(await freePort());
 *   await redis.start();   // resolves once it accepts connections
 *   await redis.stop();    // SIGKILL: gone at once, as in a crash
 *   await redis.start();   // the same port again
 */
import { type ChildProcess, spawn } from 'node:child_process';

export class RedisServer {
  private child: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${output}`)), 10_000);
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (/Ready to accept connections/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}):\n${output}`));
      });
    });
    child.removeAllListeners('exit');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

const servers = new Set<RedisServer>();
/** A server stopped with the test process, whatever happens to the test. */
export function privateRedis(port: number): RedisServer {
  const server = new RedisServer(port);
  servers.add(server);
  return server;
}
process.once('exit', () => {
  for (const server of servers) void server.stop();
});
