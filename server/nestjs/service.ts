/**
 * The reference service on NestJS (`FRAMEWORK=nestjs` on platform-express, `nestjs-fastify` on
 * platform-fastify): the same Gatehouse options, policies, stores and posts schema as the Fastify
 * host (server/app.ts), served by NestJS controllers (controllers.ts). The platform parses no
 * body: each route reads its own after the guard (`@ValidBody`), and Gatehouse's endpoints read
 * theirs, so that a caller without credentials gets 401 before any 400, 413 or 415. The metrics
 * (METRICS) are the module's: it serves them and times each request from its middleware on.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import 'reflect-metadata';
import type { DynamicModule, INestApplication, LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import cors from 'cors';
import express from 'express';
import type { Logger } from 'pino';
import type { Gatehouse } from 'gatehouse-auth';
import { type Config, serverOptions } from 'gatehouse-auth/fastify';
import { applyServerSettings, GATEHOUSE, GatehouseModule, loggedPath, serveGraphiQL, serveGraphQL } from 'gatehouse-auth/nestjs';
import { postsApi } from '../posts/posts-graphql.ts';
import { closeService, type HostServiceOptions, serviceGatehouseOptions } from '../service-gatehouse.ts';
import { serviceData } from '../storage/service-data.ts';
import { ContentController, DocumentsController, HealthController, OrganizationsController, SERVICE_DATA } from './controllers.ts';

export type NestPlatform = 'express' | 'fastify';

export interface NestService {
  readonly app: INestApplication;
  /** Gatehouse's use cases, policies and store, as `app.gatehouse` on Fastify. */
  readonly gatehouse: Gatehouse;
  readonly server: Server;
  /** Stops taking connections, closes the sockets (1001), waits for the requests under way, then closes Gatehouse. */
  close(): Promise<void>;
}

export async function buildNestService({ config, store, logger, settings, clock, gatehouse: extra }: HostServiceOptions, platform: NestPlatform): Promise<NestService> {
  const data = serviceData(store.database);
  const module: DynamicModule = {
    module: class ServiceModule {},
    imports: [GatehouseModule.forRoot({ ...serviceGatehouseOptions({ config, store, settings, clock }), ...extra, logger })],
    controllers: [HealthController, ContentController, DocumentsController, OrganizationsController],
    providers: [{ provide: SERVICE_DATA, useValue: data }],
  };
  const adapter = platform === 'express' ? new ExpressAdapter(express().disable('x-powered-by')) : new FastifyAdapter(fastifyOptions(config));
  const app = await NestFactory.create(module, adapter, { bodyParser: false, logger: nestLogger(logger) });
  if (platform === 'fastify') leaveBodiesUnread(app);
  const gatehouse = app.get<Gatehouse>(GATEHOUSE);
  if (logger.isLevelEnabled('info')) app.use(requestLog(logger));
  if (config.corsOrigins.length > 0) app.use(corsFor(config.corsOrigins));
  const posts = postsApi(gatehouse, { posts: data.posts, outbox: data.outbox, clock: gatehouse.clock, logger });
  const graphql = await serveGraphQL(app, posts.graphql);
  // GraphiQL in development only: production has no such route (404).
  if (!config.production) serveGraphiQL(app);
  await posts.start();
  applyServerSettings(app);
  await app.init();
  // The service listens on the server itself (main.ts): Fastify must be ready first, as `app.listen` would make it.
  if (platform === 'fastify') await (app.getHttpAdapter() as FastifyAdapter).getInstance().ready();
  const server = app.getHttpServer() as Server;
  return {
    app,
    gatehouse,
    server,
    // NestJS closes Gatehouse among its shutdown hooks (`app.close()`), last.
    close: () => closeService({ server, graphql, posts, auth: app }),
  };
}

/**
 * Of Gatehouse's Fastify options, those that speak of requests (its refusals before routing as
 * problem+json, the proxies it trusts, the longest path parameter), typed for the copy of Fastify
 * that platform-fastify pins; the rest name classes of this project's copy.
 */
function fastifyOptions(config: Config): ConstructorParameters<typeof FastifyAdapter>[0] {
  const { frameworkErrors, trustProxy, routerOptions } = serverOptions(config);
  return { frameworkErrors, trustProxy, routerOptions } as ConstructorParameters<typeof FastifyAdapter>[0];
}

/** Fastify parses nothing: routes read their bodies after the guard, from Node's request. */
function leaveBodiesUnread(app: INestApplication): void {
  const fastify = (app.getHttpAdapter() as FastifyAdapter).getInstance();
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
}

/** NestJS's own lines (start-up, unexpected errors) through the service's logger. */
function nestLogger(logger: Logger): LoggerService {
  return {
    log: (message: unknown) => logger.debug({ nest: true }, String(message)),
    error: (message: unknown, trace?: unknown) => logger.error({ nest: true, trace }, String(message)),
    warn: (message: unknown) => logger.warn({ nest: true }, String(message)),
  };
}

/**
 * One log line per response, as the Fastify host writes it: the path as `loggedPath` shows it (no
 * query string, no invitation code), and never a header value.
 */
function requestLog(logger: Logger) {
  return (request: IncomingMessage & { originalUrl?: string }, response: ServerResponse, next: () => void) => {
    const started = performance.now();
    response.once('finish', () => {
      const path = loggedPath(request.originalUrl ?? request.url ?? '/');
      logger.info({ method: request.method, path, status: response.statusCode, ms: Math.round(performance.now() - started) }, 'request completed');
    });
    next();
  };
}

/** Browsers on the listed origins may call with credentials; others get no CORS headers at all. */
function corsFor(origins: readonly string[]) {
  const listed = new Set(origins);
  return cors((request, callback) => callback(null, listed.has(request.headers.origin ?? '') ? { origin: true, credentials: true, maxAge: 600 } : { origin: false }));
}
