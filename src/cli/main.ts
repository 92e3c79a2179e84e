import { createRequire } from 'node:module';
import type { Membership } from '../membership/membership.ts';
import type { Services } from '../services.ts';
import { parse } from './args.ts';
import { CliError, ExitCode } from './cli-error.ts';
import { type CliOutput, processOutput } from './io.ts';

const USAGE = `usage: gatehouse <command>
  users add --email E (--password P | --password-stdin) [--name N] [--role R]… [--claim type=value]… [--confirmed]
  users list [--json]
  users roles add|remove --email E --role R
  users claims add|remove --email E --claim type=value
  users unlock --email E | users delete --email E
  apikeys create --client NAME | apikeys list | apikeys revoke --client NAME
  keys rotate | keys revoke --kid KID
  orgs create --name N --owner-email E [--slug S]
  orgs members add --org ID --email E --role R [--role R]…
  orgs list [--json]
  migrate
  --version`;

type Command = (args: string[], membership: Membership, out: CliOutput) => Promise<void>;

/** Commands load on demand, so `--version` and usage errors answer without opening anything. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  users: async () => (await import('./commands/users.ts')).usersCommand,
  apikeys: async () => (await import('./commands/apikeys.ts')).apiKeysCommand,
  keys: async () => (await import('./commands/keys.ts')).keysCommand,
  orgs: async () => (await import('./commands/orgs.ts')).orgsCommand,
};

/** Runs one CLI command against `DATABASE_URL` (tables under `DATABASE_TABLE_PREFIX` and `DATABASE_SCHEMA`); returns the exit code. */
export async function runCli(argv: string[], out: CliOutput = processOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...args] = argv;
  if (name === '--version' || name === '-v') {
    out.result(packageVersion());
    return ExitCode.ok;
  }
  if (name === undefined || name === '--help' || name === 'help') {
    out.message(USAGE);
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (!(name in COMMANDS) && name !== 'migrate') {
    out.message(`gatehouse: unknown command "${name}"\n${USAGE}`);
    return ExitCode.usage;
  }
  try {
    if (name === 'migrate') parse(args, {});
    const command = name === 'migrate' ? null : await COMMANDS[name]!();
    await withStore(env, async (open) => {
      if (command) await command(args, await open(), out);
    });
    return ExitCode.ok;
  } catch (error) {
    return failure(error, out);
  }
}

/**
 * Opens the store named by the configuration, migrates it, and hands over the use cases with the
 * command line's rules: its changes are announced to the running instances, and keep no admin.
 */
async function withStore(env: NodeJS.ProcessEnv, use: (membership: () => Promise<Membership>) => Promise<void>): Promise<void> {
  const [{ loadConfig }, { createStore }, { createServices }, { createLogger }, { createMembership }, { commandLineRules }] = await Promise.all([
    import('../config/config.ts'),
    import('../store/create-store.ts'),
    import('../services.ts'),
    import('../platform/logger.ts'),
    import('../membership/membership.ts'),
    import('../membership/change-rules.ts'),
  ]);
  const config = loadConfig(env);
  const store = await createStore(config.databaseUrl, { tablePrefix: config.databaseTablePrefix, schema: config.databaseSchema });
  try {
    await store.migrate();
    const logger = createLogger({ level: env.LOG_LEVEL ?? 'error', destination: process.stderr });
    let services: Services | undefined;
    try {
      await use(async () => {
        services = await createServices(config, store, { logger });
        return createMembership(services, commandLineRules(services.revocationFeed));
      });
    } finally {
      await services?.revocationFeed.stop();
      await services?.redis?.close();
    }
  } finally {
    await store.close();
  }
}

/** Usage and configuration problems exit 2, refusals 1, each with one line. */
async function failure(error: unknown, out: CliOutput): Promise<number> {
  const [{ ConfigError }, { UnsealError }] = await Promise.all([import('../config/config-error.ts'), import('../security/crypto/sealer.ts')]);
  const message = error instanceof Error ? error.message : String(error);
  out.message(`gatehouse: ${message}`);
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ConfigError || error instanceof UnsealError) return ExitCode.usage;
  return ExitCode.refused;
}

/** The package's own manifest by its exported name, found alike from src/ and from dist/src/. */
function packageVersion(): string {
  const manifest = createRequire(import.meta.url)('gatehouse-auth/package.json') as { version: string };
  return manifest.version;
}
