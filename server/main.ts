import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeOnSignals, ConfigError, createLogger, loadConfig, UnsealError } from 'gatehouse-auth/fastify';
import { createStore, type Store } from 'gatehouse-auth/store';
import type { Logger } from 'pino';
import { buildService } from './app.ts';
import { serviceMigrations } from './storage/service-migrations.ts';
import { loadServiceSettings } from './settings.ts';

/** Process entry: load the configuration, build the service on its host, listen. Nothing else. */
async function main(): Promise<void> {
  const settings = loadServiceSettings();
  const config = loadConfig();
  const logger = createLogger();
  const store = await createStore(config.databaseUrl, {
    migrations: serviceMigrations,
    tablePrefix: config.databaseTablePrefix,
    schema: config.databaseSchema,
    onIdleError: (error) => logger.warn({ err: error }, 'lost a database connection; the next query reconnects'),
    backgroundCheckpoints: { onError: (message) => logger.warn({ reason: message }, 'a WAL checkpoint failed; the next one tries again') },
  });
  await store.migrate();
  // Each host is imported only when it serves: a start loads one web framework, not four.
  const started = { config, store, logger };
  if (settings.framework === 'express') {
    const { buildExpressService } = await import('./express/service.ts');
    return serveOnNode(await buildExpressService({ ...started, settings }), started);
  }
  if (settings.framework === 'hono') {
    const { buildHonoService } = await import('./hono/service.ts');
    return serveOnNode(await buildHonoService({ ...started, settings }), started);
  }
  if (settings.framework === 'nestjs' || settings.framework === 'nestjs-fastify') {
    const { buildNestService } = await import('./nestjs/service.ts');
    return serveOnNode(await buildNestService({ ...started, settings }, settings.framework === 'nestjs' ? 'express' : 'fastify'), started);
  }
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

interface Started {
  readonly config: ReturnType<typeof loadConfig>;
  readonly store: Store;
  readonly logger: Logger;
}

/** A host on a Node server of its own (Express, Hono). */
interface NodeService {
  readonly server: Server;
  close(): Promise<void>;
}

/** Listen, then drain within SHUTDOWN_GRACE_SECONDS at SIGTERM or SIGINT, as the Fastify host does. */
async function serveOnNode(service: NodeService, { config, store, logger }: Started): Promise<void> {
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal }, 'a second signal during the shutdown: exiting without waiting for the drain');
      process.exit(1);
    }
    draining = true;
    logger.info({ signal, graceSeconds: config.shutdownGraceSeconds }, 'shutting down: no new connections; waiting for the requests under way');
    const timer = setTimeout(() => {
      logger.warn('the requests under way did not finish within the grace period: exiting');
      process.exit(1);
    }, config.shutdownGraceSeconds * 1000);
    timer.unref();
    service
      .close()
      .then(() => store.close())
      .then(
        () => {
          logger.info('shut down');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'the shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  await listen(service.server, config.host, config.port);
  const { address, port } = service.server.address() as AddressInfo;
  logger.info(`Gatehouse listening on http://${address.includes(':') ? `[${address}]` : address}:${port}`);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}


/** One line, no stack: exit 2 for a bad setting (a wrong KEYRING_SECRET included), 1 otherwise. */
main().catch((error: unknown) => {
  const badSetting = error instanceof ConfigError || error instanceof UnsealError;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`gatehouse: ${badSetting ? message : `could not start: ${message}`}\n`);
  process.exit(badSetting ? 2 : 1);
});
