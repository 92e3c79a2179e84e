// The NestJS baselines: NestJS 11 with one controller and one route, nothing else, on
// platform-express or (`BENCH_NEST_PLATFORM=fastify`) platform-fastify, for the ratio of the
// service on that host. Started pinned to the same core as Gatehouse; `PORT` and `HOST` come from the env.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

@Controller()
class HelloController {
  @Get('hello')
  hello() {
    return { hello: 'world' };
  }
}

@Module({ controllers: [HelloController] })
class HelloModule {}

const adapter = process.env.BENCH_NEST_PLATFORM === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
const app = await NestFactory.create(HelloModule, adapter, { logger: false });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
await app.listen(port, host);
