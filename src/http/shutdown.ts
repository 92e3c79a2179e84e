/**
 * A process's shutdown on SIGTERM or SIGINT (what an orchestrator sends before it kills):
 *
 *   const app = Fastify(serverOptions(config, logger));
 *   await app.register(gatehouse, { config });
 *   closeOnSignals(app);
 *   await app.listen({ port: config.port });
 *
 * On the first signal the app closes (`app.close()`): the server stops accepting connections,
 * the requests under way finish, a request arriving meanwhile on an open connection gets a 503
 * and `Connection: close` (plugins/draining.ts), GraphQL sockets close with 1001, and the
 * plugin's timers, feed, mailer and store close. Then the process exits 0. When that takes
 * longer than the grace, it exits 1 anyway, after one log line naming what was still open; a
 * second signal during the drain exits 1 at once.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface CloseOnSignalsOptions {
  /**
   * How long the drain may take, in seconds, before the process exits anyway.
   * @default the plugin's `shutdownGraceSeconds` (`SHUTDOWN_GRACE_SECONDS`), else 10
   */
  readonly graceSeconds?: number;
  /** @default ['SIGTERM', 'SIGINT'] */
  readonly signals?: readonly NodeJS.Signals[];
}

const DEFAULT_GRACE_SECONDS = 10;
const DEFAULT_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Closes `app` and exits the process on the first of `signals` (see above). Call it once, for
 * the app that owns the process. Returns a function that stops listening for the signals.
 */
export function closeOnSignals(app: FastifyInstance, options: CloseOnSignalsOptions = {}): () => void {
  const { graceSeconds, signals = DEFAULT_SIGNALS } = options;
  if (graceSeconds !== undefined && !(Number.isFinite(graceSeconds) && graceSeconds > 0)) {
    throw new RangeError(`closeOnSignals: graceSeconds must be a number > 0, not ${String(graceSeconds)}.`);
  }
  const inFlight = requestsInFlight(app);
  let draining = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (draining) {
      app.log.warn({ signal }, 'a second signal during the shutdown: exiting without waiting for the drain');
      process.exit(1);
    }
    draining = true;
    const grace = graceSeconds ?? (app.hasDecorator('gatehouse') ? app.gatehouse.config.shutdownGraceSeconds : DEFAULT_GRACE_SECONDS);
    app.log.info({ signal, graceSeconds: grace }, 'shutting down: no new connections; waiting for the requests under way');
    const timer = setTimeout(() => void exitWithWhatIsOpen(app, inFlight, grace), grace * 1000);
    app.close().then(
      () => {
        clearTimeout(timer);
        app.log.info('shut down');
        process.exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        app.log.error({ err: error }, 'the shutdown failed');
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.removeListener(signal, onSignal);
  };
}

/**
 * The requests the server has received and not finished answering, followed at the server
 * itself, so that the routes and hooks of every plugin count, whenever they were registered.
 */
function requestsInFlight(app: FastifyInstance): Set<IncomingMessage> {
  const inFlight = new Set<IncomingMessage>();
  app.server.on('request', (request: IncomingMessage, response: NodeJS.EventEmitter) => {
    inFlight.add(request);
    response.once('close', () => inFlight.delete(request));
  });
  return inFlight;
}

/** One line: the requests under way (method and path, never the query: codes travel there) and the open connections; then exit 1. */
async function exitWithWhatIsOpen(app: FastifyInstance, inFlight: ReadonlySet<IncomingMessage>, graceSeconds: number): Promise<void> {
  const connections = await new Promise<number | null>((resolve) => app.server.getConnections((error, count) => resolve(error ? null : count)));
  const requests = [...inFlight].map((request) => `${request.method ?? '?'} ${(request.url ?? '').split('?')[0]}`);
  app.log.error({ graceSeconds, requests, connections }, `the shutdown outlasted its grace of ${graceSeconds} s; exiting with ${requests.length} request(s) and ${connections ?? 'unknown'} connection(s) still open`);
  process.exit(1);
}
