/**
 * One deployment of several service processes for black-box tests: each spawned as `npm start`
 * runs it, all on one fresh PostgreSQL database and the shared Redis (`TEST_REDIS_URL`), with one
 * `PUBLIC_URL` (the token issuer every instance of a deployment shares). The CLI runs against the
 * same database and Redis, as an operator's would.
 *
 *   const cluster = await startCluster(postgres, 3, { TRUST_PROXY: 'true' });
 *   const [a, b, c] = cluster.services;                      // RunningService: url, handle, stop()
 *   const user = await cluster.addUser({ roles: ['Admin'] }); // through `gatehouse users add`
 *   const [x, y] = await cluster.addUsers(2);
 *   await cluster.cli(['keys', 'rotate']);                    // stdout; throws on a non-zero exit
 *   await cluster.stop();                                     // stops the processes, drops the database
 *
 * Runs the compiled build in dist/ (`npm test` builds it first).
 */
import { randomBytes } from 'node:crypto';
import type { TestEngine } from './databases.ts';
import { type RunningService, runCli, startService } from './processes.ts';

/** CLI processes at once in `addUsers`: enough to overlap their start-up, few enough for two cores. */
const CLI_AT_ONCE = 3;

/** The `PUBLIC_URL` of every cluster: instances of one deployment issue tokens as one issuer. */
export const CLUSTER_PUBLIC_URL = 'http://gatehouse.test';

export interface ClusterUser {
  readonly id: number;
  readonly email: string;
  readonly userName: string;
  readonly password: string;
}

export interface Cluster {
  readonly services: readonly RunningService[];
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /** `gatehouse <args>` against the cluster's database and Redis; its standard output. */
  cli(args: readonly string[], stdin?: string): Promise<string>;
  /** A confirmed user with a unique e-mail and user name, made by the CLI. */
  addUser(options?: { roles?: readonly string[] }): Promise<ClusterUser>;
  /** `count` such users, a few CLI processes at a time. */
  addUsers(count: number): Promise<ClusterUser[]>;
  stop(): Promise<void>;
}

/** Starts `count` instances together on a fresh database of `engine` (the first start creates tables and key ring). */
export async function startCluster(engine: TestEngine, count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const databaseUrl = await engine.createDatabaseUrl();
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    PUBLIC_URL: CLUSTER_PUBLIC_URL,
    PORT: '0',
    KEYRING_SECRET: undefined,
    LOG_LEVEL: undefined,
    ...env,
  };
  const started = await Promise.allSettled(Array.from({ length: count }, () => startService(common)));
  const services = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await Promise.all(services.map((service) => service.stop()));
    await engine.dropAll();
    throw failure.reason;
  }

  const cliEnv = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, KEYRING_SECRET: undefined, LOG_LEVEL: undefined };
  const cli = async (args: readonly string[], stdin?: string): Promise<string> => {
    const result = await runCli(args, cliEnv, stdin);
    if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')} exited with ${result.code}: ${result.stderr}`);
    return result.stdout;
  };

  const addUser = async ({ roles = [] }: { roles?: readonly string[] } = {}): Promise<ClusterUser> => {
    const userName = `u${randomBytes(6).toString('hex')}`;
    const email = `${userName}@example.com`;
    const password = `pw ${randomBytes(9).toString('base64url')} correct horse`;
    const args = ['users', 'add', '--email', email, '--password-stdin', '--name', userName, '--confirmed'];
    for (const role of roles) args.push('--role', role);
    const id = Number((await cli(args, `${password}\n`)).trim());
    if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`gatehouse users add printed no id for ${email}`);
    return { id, email, userName, password };
  };

  return {
    services,
    databaseUrl,
    redisUrl,
    cli,
    addUser,
    async addUsers(count) {
      const made: ClusterUser[] = [];
      while (made.length < count) {
        const batch = Math.min(CLI_AT_ONCE, count - made.length);
        made.push(...(await Promise.all(Array.from({ length: batch }, () => addUser()))));
      }
      return made;
    },
    async stop() {
      await Promise.all(services.map((service) => service.stop()));
      await engine.dropAll();
    },
  };
}
