/**
 * Runs the invoices API on NestJS: configuration from the environment (DATABASE_URL, PORT, HOST,
 * PUBLIC_URL and the rest of Gatehouse's variables), then listen.
 */
import { ConfigError, createLogger, loadConfig, UnsealError } from 'gatehouse-auth/nestjs';
import { buildInvoicesNestApp } from './app.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger();
  const { app, close } = await buildInvoicesNestApp({ config, logger });
  await app.listen(config.port, config.host);
  logger.info(`Invoices (NestJS) listening on ${(await app.getUrl()).replace('[::1]', '127.0.0.1')}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      close().then(() => process.exit(0), () => process.exit(1));
    });
  }
}

main().catch((error: unknown) => {
  // A bad setting (or a wrong KEYRING_SECRET) is the operator's to fix: one line, exit 2.
  const badSetting = error instanceof ConfigError || error instanceof UnsealError;
  process.stderr.write(`invoices: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(badSetting ? 2 : 1);
});
