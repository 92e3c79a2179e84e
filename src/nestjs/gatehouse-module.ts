/**
 * Gatehouse on NestJS, on platform-express and platform-fastify alike:
 *
 *   @Module({ imports: [GatehouseModule.forRoot({ settings, policies, handlers })], controllers: [AccountController] })
 *   export class AppModule {}
 *
 *   @Controller('account') @Authorize()
 *   export class AccountController {
 *     @Get('me') me(@CurrentUser() user: ClaimsPrincipal) { … }
 *     @Post('login') @AllowAnonymous() login() { … }
 *   }
 *
 * The module serves Gatehouse's endpoints and, when they are on, the metrics (middleware on every
 * path), registers the global guard
 * that decides each request at its handler and the exception filter of Gatehouse's refusals, and
 * provides `GATEHOUSE` (the use cases), `AuthorizationService` (resource checks) and
 * `GatehouseGraphQL` (the options of `@nestjs/graphql`'s drivers). It closes
 * Gatehouse when the application shuts down (`app.enableShutdownHooks()` for signals).
 */
import type { IncomingMessage } from 'node:http';
import { Catch, type DynamicModule, Inject, type MiddlewareConsumer, Module, type NestModule, type OnApplicationShutdown, RequestMethod } from '@nestjs/common';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import type { Logger } from 'pino';
import { clientAddress } from '../endpoints/node-request.ts';
import { type GatehouseInstance, startGatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { GatehouseInstanceOptions } from '../hosting/gatehouse-options.ts';
import { AuthorizationService } from './authorization-service.ts';
import { endpointsMiddleware } from './endpoints-middleware.ts';
import { GatehouseGraphQL } from './gatehouse-graphql.ts';
import { GatehouseGuard } from './gatehouse-guard.ts';
import { nestMetrics } from './nest-metrics.ts';
import { GatehouseExceptionFilter } from './refusal-filter.ts';

/** The token of the application's `Gatehouse` (its use cases, policies and store): `@Inject(GATEHOUSE) gatehouse: Gatehouse`. */
export const GATEHOUSE = Symbol('Gatehouse');

/** The instance behind the module's providers (for this package's own NestJS helpers; not exported by the entry point). */
export const INSTANCE = Symbol('GatehouseInstance');
const OPTIONS = Symbol('GatehouseModuleOptions');

/** `GatehouseModule.forRoot`'s options: Gatehouse's (as on every host), and the logger it writes to. */
export interface GatehouseModuleOptions extends GatehouseInstanceOptions {
  /** Where Gatehouse logs (credentials redacted by default). */
  readonly logger?: Logger;
}

/** `GatehouseModule.forRootAsync`'s options, as NestJS's own modules take them. */
export interface GatehouseModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: (InjectionToken | OptionalFactoryDependency)[];
  readonly useFactory: (...args: never[]) => GatehouseModuleOptions | Promise<GatehouseModuleOptions>;
}

export class GatehouseModule implements NestModule, OnApplicationShutdown {
  constructor(private readonly instance: GatehouseInstance) {}

  /** Gatehouse with these options, for the whole application (a global module). */
  static forRoot(options: GatehouseModuleOptions = {}): DynamicModule {
    return GatehouseModule.forRootAsync({ useFactory: () => options });
  }

  /** Gatehouse with options made by a factory of the application's providers (its configuration service). */
  static forRootAsync({ imports = [], inject = [], useFactory }: GatehouseModuleAsyncOptions): DynamicModule {
    const fromInstance = <T>(make: (instance: GatehouseInstance, adapterHost: HttpAdapterHost, address: (request: IncomingMessage) => string) => T) => ({
      useFactory: (instance: GatehouseInstance, adapterHost: HttpAdapterHost) => make(instance, adapterHost, clientAddress(instance.config.trustProxy)),
      inject: [INSTANCE, HttpAdapterHost],
    });
    return {
      module: GatehouseModule,
      global: true,
      imports,
      providers: [
        { provide: OPTIONS, useFactory, inject },
        {
          provide: INSTANCE,
          useFactory: (options: GatehouseModuleOptions) => {
            const { logger, ...instanceOptions } = options;
            return startGatehouseInstance(instanceOptions, logger === undefined ? {} : { logger });
          },
          inject: [OPTIONS],
        },
        { provide: GATEHOUSE, useFactory: (instance: GatehouseInstance) => instance.gatehouse, inject: [INSTANCE] },
        { provide: AuthorizationService, useFactory: (instance: GatehouseInstance) => new AuthorizationService(instance), inject: [INSTANCE] },
        { provide: GatehouseGraphQL, useFactory: (instance: GatehouseInstance) => new GatehouseGraphQL(instance.gatehouse), inject: [INSTANCE] },
        { provide: APP_GUARD, ...fromInstance((instance, adapterHost, address) => new GatehouseGuard(instance, adapterHost, address)) },
        { provide: APP_FILTER, ...fromInstance((instance, adapterHost, address) => new GatehouseExceptionFilter(instance, adapterHost, address)) },
      ],
      exports: [GATEHOUSE, AuthorizationService, GatehouseGraphQL],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    const { instance } = this;
    const endpoints = endpointsMiddleware(instance, clientAddress(instance.config.trustProxy));
    // The metrics first: they time every request from here, and serve their path.
    const middleware = instance.metrics === undefined ? [endpoints] : [nestMetrics(instance.metrics), endpoints];
    consumer.apply(...middleware).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.instance.close();
  }
}

// NestJS's decorators applied as functions: the library needs no decorator compilation of its own.
Module({})(GatehouseModule);
Inject(INSTANCE)(GatehouseModule, undefined, 0);
Catch()(GatehouseExceptionFilter);
