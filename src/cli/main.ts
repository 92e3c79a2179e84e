import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/config-error.ts';
import { loadConfig } from '../config/config.ts';
import { createLogger } from '../platform/logger.ts';
import { createServices, type Services } from '../services.ts';
import { createStore } from '../store/create-store.ts';
import { CliError, ExitCode } from './cli-error.ts';
import { apiKeysCommand } from './commands/apikeys.ts';
import { keysCommand } from './commands/keys.ts';
import { usersCommand } from './commands/users.ts';
import { type CliOutput, processOutput } from './io.ts';

const USAGE = `usage: gatehouse <command>
  users add --email E --password P [--name N] [--role R]… [--claim type=value]… [--confirmed]
  users list [--json]
  users roles add|remove --email E --role R
  users claims add|remove --email E --claim type=value
  users unlock --email E | users delete --email E
  apikeys create --client NAME | apikeys list | apikeys revoke --client NAME
  keys rotate | keys revoke --kid KID
  migrate
  --version`;

type Command = (args: string[], services: Services, out: CliOutput) => Promise<void>;
const COMMANDS: Record<string, Command> = { users: usersCommand, apikeys: apiKeysCommand, keys: keysCommand };

/** Runs one CLI command against `DATABASE_URL`; returns the exit code. */
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
  const command = COMMANDS[name];
  if (!command && name !== 'migrate') {
    out.message(`gatehouse: unknown command "${name}"\n${USAGE}`);
    return ExitCode.usage;
  }
  try {
    const config = loadConfig(env);
    const store = await createStore(config.databaseUrl);
    try {
      await store.migrate();
      if (command) {
        const logger = createLogger({ level: env.LOG_LEVEL ?? 'error', destination: process.stderr });
        await command(args, await createServices(config, store, { logger }), out);
      }
    } finally {
      await store.close();
    }
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CliError) {
      out.message(`gatehouse: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof ConfigError) {
      out.message(`gatehouse: ${error.message}`);
      return ExitCode.usage;
    }
    out.message(`gatehouse: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.refused;
  }
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
