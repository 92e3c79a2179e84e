/**
 * One deployment of several service processes for black-box tests: each spawned as `npm start`
 * runs it, all on one fresh PostgreSQL database and the shared Redis (`TEST_REDIS_URL`), with one
 * `PUBLIC_URL` (the token issuer every instance of a deployment shares), behind a proxy
 * (`TRUST_PROXY=true`). The CLI runs against the same database and Redis, as an operator's would.
 *
 *   const cluster = await startCluster(postgres, 3, { RATE_LIMIT_IP_PER_MINUTE: '12' });
 *   const [a, b, c] = cluster.services;                      // RunningService: url, handle, stop()
 *   const admin = await cluster.addUser({ roles: ['Admin'] }); // through `gatehouse users add`
 *   const [x, y] = await cluster.registerUsers(2);            // registered and confirmed over HTTP
 *   await cluster.cli(['keys', 'rotate']);                    // stdout; throws on a non-zero exit
 *   await cluster.stop();                                     // stops the processes, drops the database
 *
 * Per-IP rate-limit counters in Redis are keyed by the client's address alone, and other test
 * files send from 127.0.0.1 too: every rate-limited request of a cluster's tests should carry an
 * `X-Forwarded-For` address of its own (`freshIp()`), as `registerUsers` does.
 *
 * Runs the compiled build in dist/ (`npm test` builds it first).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestEngine } from './databases.ts';
import { type RunningService, runCli, startService } from './processes.ts';

/** How long a registration's confirmation mail may take to reach the outbox. */
const MAIL_TIMEOUT_MS = 10_000;

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
  /**
   * `count` users registered over HTTP and confirmed through the link of their mail (read from the
   * dev outbox): a CLI process a user costs a second of CPU, a registration a hash.
   */
  registerUsers(count: number): Promise<ClusterUser[]>;
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
    TRUST_PROXY: 'true',
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

  const registerUser = async (service: RunningService, outbox: pg.Client): Promise<ClusterUser> => {
    const { email, userName, password } = newCredentials();
    const registered = await fetch(`${service.url}/account/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': freshIp() },
      body: JSON.stringify({ email, password, userName }),
    });
    if (registered.status !== 202) throw new Error(`POST /account/register answered ${registered.status}: ${await registered.text()}`);
    await registered.body?.cancel();
    const link = new URL(await confirmationLink(outbox, email));
    const confirmed = await fetch(`${service.url}${link.pathname}${link.search}`);
    if (confirmed.status !== 200) throw new Error(`GET /account/confirm-email answered ${confirmed.status}: ${await confirmed.text()}`);
    await confirmed.body?.cancel();
    return { id: Number(link.searchParams.get('userId')), email, userName, password };
  };

  const addUser = async ({ roles = [] }: { roles?: readonly string[] } = {}): Promise<ClusterUser> => {
    const { email, userName, password } = newCredentials();
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
    async registerUsers(count) {
      const outbox = new pg.Client({ connectionString: databaseUrl });
      await outbox.connect();
      try {
        return await Promise.all(Array.from({ length: count }, (_, i) => registerUser(services[i % services.length]!, outbox)));
      } finally {
        await outbox.end();
      }
    },
    async stop() {
      await Promise.all(services.map((service) => service.stop()));
      await engine.dropAll();
    },
  };
}

/** A client address no other request of this run is likely to use (a random one of 10.0.0.0/8). */
export function freshIp(): string {
  const [a, b, c] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
}

function newCredentials(): Omit<ClusterUser, 'id'> {
  const userName = `u${randomBytes(6).toString('hex')}`;
  return { userName, email: `${userName}@example.com`, password: `pw ${randomBytes(9).toString('base64url')} correct horse` };
}

/** The confirmation link of the newest mail to `email` in the dev outbox, once it is there. */
async function confirmationLink(outbox: pg.Client, email: string): Promise<string> {
  const deadline = Date.now() + MAIL_TIMEOUT_MS;
  for (;;) {
    const { rows } = await outbox.query<{ text: string }>('select text from outbox where recipient = $1 order by id desc limit 1', [email]);
    const link = rows[0]?.text.match(/https?:\/\/\S+\/account\/confirm-email\?\S+/)?.[0];
    if (link !== undefined) return link;
    if (Date.now() >= deadline) throw new Error(`no confirmation mail to ${email} within ${MAIL_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
