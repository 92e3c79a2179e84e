/**
 * Runs the notes board: configuration from the environment (DATABASE_URL, PORT, HOST, PUBLIC_URL,
 * REDIS_URL and the rest of Gatehouse's variables), then listen.
 */
import { ConfigError, createLogger, loadConfig, UnsealError } from 'gatehouse-auth/fastify';
import { buildNotesApp } from './app.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger();
  const app = await buildNotesApp({ config, logger });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(() => process.exit(0), () => process.exit(1));
    });
  }
  await app.listen({ host: config.host, port: config.port, listenTextResolver: (address) => `Notes listening on ${address}` });
}

main().catch((error: unknown) => {
  // A bad setting (or a wrong KEYRING_SECRET) is the operator's to fix: one line, exit 2.
  const badSetting = error instanceof ConfigError || error instanceof UnsealError;
  process.stderr.write(`notes: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(badSetting ? 2 : 1);
});
