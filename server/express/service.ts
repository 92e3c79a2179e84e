/**
 * The reference service on Express 5 (`FRAMEWORK=express`): the same Gatehouse options, policies,
 * stores and posts schema as the Fastify host (server/app.ts), served the way an Express
 * application serves them. The order of `app.use` is the pipeline: the metrics, CORS, Gatehouse's
 * endpoints, GraphQL, the middleware that decides each request at its route, the routes (each
 * reading its body after the decision), 404, the errors.
 */
import type { Server } from 'node:http';
import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Gatehouse } from 'gatehouse-auth';
import { type Config, gatehouse, loggedPath } from 'gatehouse-auth/express';
import { postsApi } from '../posts/posts-graphql.ts';
import { closeService, type HostServiceOptions, serviceGatehouseOptions } from '../service-gatehouse.ts';
import { serviceData } from '../storage/service-data.ts';
import { serviceRoutes } from './routes.ts';

export interface ExpressService {
  /** The application, for a test that injects requests into it. */
  readonly app: Express;
  /** Gatehouse's use cases, policies and store, as `app.gatehouse` on Fastify. */
  readonly gatehouse: Gatehouse;
  readonly server: Server;
  /** Stops taking connections, closes the sockets (1001), waits for the requests under way, then closes Gatehouse. */
  close(): Promise<void>;
}

export async function buildExpressService({ config, store, logger, settings, clock, gatehouse: extra }: HostServiceOptions): Promise<ExpressService> {
  const auth = await gatehouse(
    {
      ...serviceGatehouseOptions({ config, store, settings, clock }),
      ...extra,
    },
    { logger },
  );
  const data = serviceData(store.database);
  const posts = postsApi(auth.gatehouse, { posts: data.posts, outbox: data.outbox, clock: auth.gatehouse.clock, logger });
  const graphql = await auth.graphql(posts.graphql);
  await posts.start();

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy(config));
  // First, so that every request is timed from its arrival, as on Fastify; `/metrics` when METRICS is on.
  app.use(auth.metrics);
  if (logger.isLevelEnabled('info')) app.use(requestLog(logger));
  if (config.corsOrigins.length > 0) app.use(cors(corsFor(config.corsOrigins)));
  app.use(auth.endpoints);
  app.use(graphql.handler);
  // GraphiQL in development only: production has no such route (404).
  if (!config.production) app.use(auth.graphiql());
  app.use(auth.middleware);
  app.use(serviceRoutes(auth, data));
  app.use(auth.notFound);
  app.use(auth.errors);

  const server = auth.createServer(app);
  graphql.attach(server, app);
  return {
    app,
    gatehouse: auth.gatehouse,
    server,
    close: () => closeService({ server, graphql, posts, auth }),
  };
}

/**
 * One log line per response, as the Fastify host writes it: the path as `loggedPath` shows it (no
 * query string, no invitation code), and never a header value.
 */
function requestLog(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const started = performance.now();
    response.once('finish', () => {
      const path = loggedPath(request.originalUrl);
      logger.info({ method: request.method, path, status: response.statusCode, ms: Math.round(performance.now() - started) }, 'request completed');
    });
    next();
  };
}

/** `TRUST_PROXY` as Express's `trust proxy`: a hop count, the proxies' addresses, or none. */
function trustProxy({ trustProxy: trusted }: Config): boolean | number | string[] {
  if (trusted === false) return false;
  return 'hops' in trusted ? trusted.hops : [...trusted.addresses];
}

/** Browsers on the listed origins may call with credentials; others get no CORS headers at all. */
function corsFor(origins: readonly string[]): cors.CorsOptionsDelegate<express.Request> {
  const listed = new Set(origins);
  return (request, callback) => callback(null, listed.has(request.headers.origin ?? '') ? { origin: true, credentials: true, maxAge: 600 } : { origin: false });
}

