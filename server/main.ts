import { closeOnSignals, ConfigError, createLogger, loadConfig, UnsealError } from 'gatehouse-auth/fastify';
import { createStore } from 'gatehouse-auth/store';
import { buildService } from './app.ts';
import { serviceMigrations } from './storage/service-migrations.ts';
import { loadServiceSettings } from './settings.ts';

/** Process entry: load the configuration, build the service, listen. Nothing else. */
async function main(): Promise<void> {
  const config = loadConfig();
  const settings = loadServiceSettings();
  const logger = createLogger();
  const store = await createStore(config.databaseUrl, {
    migrations: serviceMigrations,
    tablePrefix: config.databaseTablePrefix,
    schema: config.databaseSchema,
    onIdleError: (error) => logger.warn({ err: error }, 'lost a database connection; the next query reconnects'),
    backgroundCheckpoints: { onError: (message) => logger.warn({ reason: message }, 'a WAL checkpoint failed; the next one tries again') },
  });
  await store.migrate();
  // The OpenAPI document at /openapi.json in development only (decision 0042).
  const app = await buildService({ config, store, logger, settings, gatehouse: { openapi: !config.production } });
  app.addHook('onClose', () => store.close());
  // SIGTERM and SIGINT drain the app within SHUTDOWN_GRACE_SECONDS, then exit.
  closeOnSignals(app, { graceSeconds: config.shutdownGraceSeconds });
  await app.listen({
    host: config.host,
    port: config.port,
    listenTextResolver: (address) => `Gatehouse listening on ${address}`,
  });
}

/** One line, no stack: exit 2 for a bad setting (a wrong KEYRING_SECRET included), 1 otherwise. */
main().catch((error: unknown) => {
  const badSetting = error instanceof ConfigError || error instanceof UnsealError;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`gatehouse: ${badSetting ? message : `could not start: ${message}`}\n`);
  process.exit(badSetting ? 2 : 1);
});
