/**
 * A Gatehouse instance for black-box tests: the real configuration parser, store, services and
 * Fastify app on a fresh database of one engine, driven through `app.inject` (the real router
 * and hooks, without a socket). Logs are captured so tests can prove no secret reaches them.
 *
 *   const engines = await testEngines();
 *   describe.each(engines)('… on $engine', (engine) => {
 *     const ctx = useTestApp(engine, { env: { BUSINESS_HOURS: '09:00-17:00' } });
 *     it('…', async () => { const res = await ctx.app.inject({ url: '/me' }); … });
 *   });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import inject, { type InjectOptions } from 'light-my-request';
import { buildExpressService, type ExpressService } from '../../server/express/service.ts';
import { buildHonoService } from '../../server/hono/service.ts';
import { buildNestService, type NestService } from '../../server/nestjs/service.ts';
import type { HostServiceOptions } from '../../server/service-gatehouse.ts';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { buildService, type ServiceOptions } from '../../server/app.ts';
import { loadServiceSettings } from '../../server/settings.ts';
import { type ServiceData, serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import type { NewUserInput } from '../../src/identity/user-manager.ts';
import type { LogEvent } from 'kysely';
import { type Clock, systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import type { Services } from '../../src/services.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { User } from '../../src/store/ports.ts';
import type { TestEngine } from './databases.ts';
import { gatehouseServices } from '../../src/gatehouse-internals.ts';

export interface TestAppOptions {
  /** Environment variables on top of the defaults (`NODE_ENV=test`). */
  readonly env?: Record<string, string>;
  readonly clock?: Clock;
  /** Options of the Gatehouse plugin the service leaves open, e.g. a replacement result handler. */
  readonly appOptions?: ServiceOptions['gatehouse'];
  /** Kysely's query log of the instance's store: each query with its SQL. */
  readonly storeLog?: (event: LogEvent) => void;
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly services: Services;
  /** The service's own stores (documents, organization settings, posts). */
  readonly data: ServiceData;
  readonly databaseUrl: string;
  /** Every log line written so far, raw. */
  readonly logs: string[];
  createUser(input?: Partial<NewUserInput>): Promise<{ user: User; password: string }>;
  /** An access token for the user; for `organizationId`, one issued as `/auth/token` would (a new family, that organization active). */
  tokenFor(user: User, organizationId?: number): Promise<string>;
  apiKey(client?: string): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * The host the black-box suites drive (`TEST_FRAMEWORK`, set per Vitest project): `fastify`, or
 * `express` or `hono` for the reference service on that host, through the same `inject`
 * (light-my-request injects into any Node request handler).
 */
const HOSTS = ['express', 'hono', 'nestjs', 'nestjs-fastify'] as const;
export const TEST_FRAMEWORK: 'fastify' | (typeof HOSTS)[number] = (HOSTS as readonly string[]).includes(process.env.TEST_FRAMEWORK ?? '') ? (process.env.TEST_FRAMEWORK as (typeof HOSTS)[number]) : 'fastify';

const require = createRequire(import.meta.url);
const InjectedRequest = require('light-my-request/lib/request.js') as { prototype: object };
const InjectedResponse = require('light-my-request/lib/response.js') as { prototype: object };

/**
 * `app` as light-my-request's dispatch function. Given an Express app itself, light-my-request
 * re-parents Express's request and response prototypes, which every Express app of the process
 * shares, onto its own fakes: the requests of a real socket then write through them and hang.
 * Here the injected requests get prototypes of their own: Express's methods over
 * light-my-request's classes, the app's own prototypes untouched.
 */
function injectable(app: Express): (request: IncomingMessage, response: ServerResponse) => void {
  const over = (fake: object, express: object) =>
    Object.create(fake, { ...Object.getOwnPropertyDescriptors(Object.getPrototypeOf(express) as object), ...Object.getOwnPropertyDescriptors(express) }) as object;
  const forInjection = Object.create(app, { request: { value: over(InjectedRequest.prototype, app.request) }, response: { value: over(InjectedResponse.prototype, app.response) } }) as Express;
  // Express's own `app.handle` (untyped), with the injected prototypes.
  const { handle } = app as unknown as { handle: (this: Express, request: IncomingMessage, response: ServerResponse) => void };
  return (request, response) => handle.call(forInjection, request, response);
}

/**
 * The Express or Hono service behind the part of Fastify's instance the suites use: `inject`,
 * `listen`, `server`, `gatehouse`, `ready`, `close`.
 */
async function nodeHost(framework: (typeof HOSTS)[number], serviceOptions: Omit<ServiceOptions, 'gatehouse'>, options: TestAppOptions): Promise<FastifyInstance> {
  const { resultHandler, openapi, ...gatehouse } = options.appOptions ?? {};
  if (resultHandler !== undefined || openapi !== undefined) throw new Error('resultHandler and openapi are options of the Fastify plugin: this suite runs on Fastify only.');
  const service = await buildHost(framework, { ...serviceOptions, gatehouse });
  // Hono's and NestJS-on-Fastify's are the server's own listener, which light-my-request drives as
  // it is; an Express application (NestJS's on platform-express too) needs prototypes of its own.
  const express = framework === 'express' ? (service as ExpressService).app : framework === 'nestjs' ? ((service as NestService).app.getHttpAdapter().getInstance() as Express) : undefined;
  const dispatch = express !== undefined ? injectable(express) : (service.server.listeners('request')[0] as (request: IncomingMessage, response: ServerResponse) => void);
  const host = {
    inject: (request: InjectOptions) => inject(dispatch, request),
    listen: async ({ host: address, port }: { host: string; port: number }) => {
      await new Promise<void>((resolve) => service.server.listen(port, address, resolve));
      return `http://${address}:${(service.server.address() as AddressInfo).port}`;
    },
    server: service.server,
    gatehouse: service.gatehouse,
    ready: async () => host,
    close: () => service.close(),
  };
  return host as unknown as FastifyInstance;
}

/**
 * An ES module that starts Gatehouse with `settings` (an object literal) on the host under test,
 * through its public entry point as an application would, logging nothing, then stops it: for a
 * fresh process that looks at what the start loaded.
 */
export function hostStartProgram(settings: string): string {
  switch (TEST_FRAMEWORK) {
    case 'fastify':
      return `
        import Fastify from 'fastify';
        import { gatehouse } from 'gatehouse-auth/fastify';
        const app = Fastify();
        await app.register(gatehouse, { settings: ${settings} });
        await app.ready();
        await app.close();`;
    case 'express':
    case 'hono':
      return `
        import { createLogger, gatehouse } from 'gatehouse-auth/${TEST_FRAMEWORK}';
        const auth = await gatehouse({ settings: ${settings} }, { logger: createLogger({ level: 'silent' }) });
        await auth.close();`;
    case 'nestjs':
    case 'nestjs-fastify':
      return `
        import 'reflect-metadata';
        import { NestFactory } from '@nestjs/core';
        import { FastifyAdapter } from '@nestjs/platform-fastify';
        import { createLogger, GatehouseModule } from 'gatehouse-auth/nestjs';
        const logger = createLogger({ level: 'silent' });
        const module = { module: class Application {}, imports: [GatehouseModule.forRoot({ settings: ${settings}, logger })] };
        const app = ${TEST_FRAMEWORK === 'nestjs' ? 'await NestFactory.create(module, { logger: false })' : 'await NestFactory.create(module, new FastifyAdapter(), { logger: false })'};
        await app.init();
        await app.close();`;
  }
}

function buildHost(framework: (typeof HOSTS)[number], options: HostServiceOptions) {
  switch (framework) {
    case 'express':
      return buildExpressService(options);
    case 'hono':
      return buildHonoService(options);
    case 'nestjs':
      return buildNestService(options, 'express');
    case 'nestjs-fastify':
      return buildNestService(options, 'fastify');
  }
}

/** Starts one instance on `databaseUrl` (migrated here); `close()` stops it and the store. */
export async function startTestApp(databaseUrl: string, options: TestAppOptions = {}): Promise<TestApp> {
  const env = { NODE_ENV: 'test', DATABASE_URL: databaseUrl, ...options.env };
  const config = loadConfig(env);
  const settings = loadServiceSettings(env);
  const store = await createStore(databaseUrl, { migrations: serviceMigrations, ...(options.storeLog ? { log: options.storeLog } : {}) });
  await store.migrate();
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  const serviceOptions = { config, store, logger, settings, clock: options.clock ?? systemClock };
  const app = TEST_FRAMEWORK !== 'fastify' ? await nodeHost(TEST_FRAMEWORK, serviceOptions, options) : await buildService({ ...serviceOptions, ...(options.appOptions ? { gatehouse: options.appOptions } : {}) });
  await app.ready();
  const services = gatehouseServices(app.gatehouse);
  return {
    app,
    services,
    data: serviceData(store.database),
    databaseUrl,
    logs,
    async createUser(input = {}) {
      counter += 1;
      const password = input.password ?? `pw-${counter}-correct horse battery`;
      const user = await services.users.create({
        email: `user${counter}-${process.pid}@example.com`,
        emailConfirmed: true,
        ...input,
        password,
      });
      return { user, password };
    },
    async tokenFor(user, organizationId) {
      if (organizationId !== undefined) return (await services.refreshTokens.issue(user, { organizationId })).accessToken;
      return (await services.accessTokens.issue(user)).token;
    },
    apiKey(client = `client-${++counter}`) {
      return services.apiKeys.create(client);
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/**
 * Gives each test of the enclosing `describe` a fresh instance on a fresh database of `engine`,
 * a copy of one migrated once for the suite.
 */
export function useTestApp(engine: TestEngine, options: TestAppOptions = {}): TestApp {
  let current: TestApp | undefined;
  beforeEach(async () => {
    current = await startTestApp(await engine.createMigratedDatabaseUrl(serviceMigrations), options);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(() => engine.dropAll());
  return new Proxy({} as TestApp, {
    get(_target, property) {
      if (!current) throw new Error('The test app exists only inside a test.');
      return current[property as keyof TestApp];
    },
  });
}

/** The parsed JSON body of a response. */
export function json<T = Record<string, unknown>>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
