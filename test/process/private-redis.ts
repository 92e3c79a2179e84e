/**
 * A Redis server of the test's own, on a free port, with nothing saved: its channels carry only
 * the test's events (the machine's shared Redis carries other test runs' too).
 *
 *   const redis = await startPrivateRedis();   // redis.url, then redis.stop()
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort, waitUntil } from '../helpers/processes.ts';

export interface PrivateRedis {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUntil(
      async () => {
        const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        // Refused until the server listens: the failed connect() says so.
        client.on('error', () => undefined);
        try {
          await client.connect();
          return (await client.ping()) === 'PONG';
        } finally {
          client.disconnect();
        }
      },
      { timeoutMs: 10_000, intervalMs: 50, what: `redis-server on port ${port} to answer` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
