/**
 * The reference service on Hono (`FRAMEWORK=hono`), on `@hono/node-server`: the same Gatehouse
 * options, policies, stores and posts schema as the Fastify host (server/app.ts), served the way a
 * Hono application serves them. The order of `app.use` is the pipeline: the metrics, the request log, CORS,
 * Gatehouse's endpoints, GraphQL, the middleware that decides each request at its route, the
 * routes (each reading its body after the decision); then 404 and the errors.
 */
import type { Server } from 'node:http';
import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Logger } from 'pino';
import type { Gatehouse } from 'gatehouse-auth';
import { type GatehouseEnv, gatehouse, loggedPath } from 'gatehouse-auth/hono';
import { postsApi } from '../posts/posts-graphql.ts';
import { closeService, type HostServiceOptions, serviceGatehouseOptions } from '../service-gatehouse.ts';
import { serviceData } from '../storage/service-data.ts';
import { serviceRoutes } from './routes.ts';

export interface HonoService {
  /** The application, for a test that sends it requests (`app.request`). */
  readonly app: Hono<GatehouseEnv>;
  /** Gatehouse's use cases, policies and store, as `app.gatehouse` on Fastify. */
  readonly gatehouse: Gatehouse;
  readonly server: Server;
  /** Stops taking connections, closes the sockets (1001), waits for the requests under way, then closes Gatehouse. */
  close(): Promise<void>;
}

export async function buildHonoService({ config, store, logger, settings, clock, gatehouse: extra }: HostServiceOptions): Promise<HonoService> {
  const auth = await gatehouse({ ...serviceGatehouseOptions({ config, store, settings, clock }), ...extra }, { logger });
  const data = serviceData(store.database);
  const posts = postsApi(auth.gatehouse, { posts: data.posts, outbox: data.outbox, clock: auth.gatehouse.clock, logger });
  const graphql = await auth.graphql(posts.graphql);
  await posts.start();

  const app = new Hono<GatehouseEnv>();
  // First, so that every request is timed from its arrival, as on Fastify; `/metrics` when METRICS is on.
  app.use(auth.metrics);
  if (logger.isLevelEnabled('info')) app.use(requestLog(logger));
  if (config.corsOrigins.length > 0) app.use(corsFor(config.corsOrigins));
  app.use(auth.endpoints);
  app.use(graphql.handler);
  // GraphiQL in development only: production has no such route (404).
  if (!config.production) app.use(auth.graphiql());
  app.use(auth.middleware);
  app.route('/', serviceRoutes(auth, data));
  app.notFound(auth.notFound);
  app.onError(auth.onError);

  const server = auth.createServer(app);
  graphql.attach(server);
  return {
    app,
    gatehouse: auth.gatehouse,
    server,
    close: () => closeService({ server, graphql, posts, auth }),
  };
}

/** Browsers on the listed origins may call with credentials; others get no CORS headers at all. */
function corsFor(origins: readonly string[]): MiddlewareHandler {
  const listed = new Set(origins);
  const listedOrigins = cors({ origin: (origin) => origin, credentials: true, maxAge: 600 });
  return (c, next) => (listed.has(c.req.header('origin') ?? '') ? listedOrigins(c, next) : next());
}

/**
 * One log line per response, as the Fastify host writes it: the path as `loggedPath` shows it (no
 * query string, no invitation code), and never a header value.
 */
function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info({ method: c.req.method, path: loggedPath(c.req.path), status: c.res.status, ms: Math.round(performance.now() - started) }, 'request completed');
  };
}
