/**
 * Runs the invoices API on Hono: configuration from the environment (DATABASE_URL, PORT, HOST,
 * PUBLIC_URL and the rest of Gatehouse's variables), then listen.
 */
import type { AddressInfo } from 'node:net';
import { ConfigError, createLogger, loadConfig, UnsealError } from 'gatehouse-auth/hono';
import { buildInvoicesHonoApp } from './app.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger();
  const { server, close } = await buildInvoicesHonoApp({ config, logger });
  server.listen(config.port, config.host, () => {
    const { port } = server.address() as AddressInfo;
    logger.info(`Invoices (Hono) listening on http://${config.host}:${port}`);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      server.close(() => close().then(() => process.exit(0), () => process.exit(1)));
    });
  }
}

main().catch((error: unknown) => {
  // A bad setting (or a wrong KEYRING_SECRET) is the operator's to fix: one line, exit 2.
  const badSetting = error instanceof ConfigError || error instanceof UnsealError;
  process.stderr.write(`invoices: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(badSetting ? 2 : 1);
});
