import { ConfigError } from './config/config-error.ts';
import { loadConfig } from './config/config.ts';
import { buildApp } from './http/app.ts';
import { createLogger } from './platform/logger.ts';
import { createServices } from './services.ts';
import { createStore } from './store/create-store.ts';

/** Process entry: load the configuration, build the service, listen. Nothing else. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`gatehouse: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger();
  const store = await createStore(config.databaseUrl, {
    onIdleError: (error) => logger.warn({ err: error }, 'lost a database connection; the next query reconnects'),
  });
  await store.migrate();
  const services = await createServices(config, store, { logger });
  const app = await buildApp(services);
  app.addHook('onClose', () => store.close());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      app.close().then(() => process.exit(0), () => process.exit(1));
    });
  }
  await app.listen({
    host: config.host,
    port: config.port,
    listenTextResolver: (address) => `Gatehouse listening on ${address}`,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gatehouse: could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
