/**
 * GraphQL through `@nestjs/graphql`, driven as clients drive it: a code-first schema whose rules
 * are `@Authorize()` on resolvers and `@Extensions({ authorize })` on fields, served by the Apollo
 * driver on platform-express and platform-fastify and by the Mercurius driver on platform-fastify,
 * with `GatehouseGraphQL`'s options. Subscriptions run over graphql-ws — the Apollo driver's own,
 * beside Mercurius — and follow their credential.
 */
import 'reflect-metadata';
import type { Server } from 'node:http';
import { type DynamicModule, Inject, type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Args, Extensions, Field, GraphQLModule, GraphQLSchemaHost, Int, Mutation, ObjectType, Parent, Query, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import { ExpressAdapter } from '@nestjs/platform-express';
import { json } from 'express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { useServer } from 'graphql-ws/use/ws';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { AssertionRequirement, type AuthorizationPolicy, AuthorizationPolicyBuilder, type ClaimsPrincipal, type Gatehouse, type PolicyName } from 'gatehouse-auth';
import { createEvents } from 'gatehouse-auth/graphql';
import { Authorize, AuthorizationService, CurrentUser, GATEHOUSE, GatehouseGraphQL, GatehouseModule } from 'gatehouse-auth/nestjs';
import { openSocket } from '../helpers/graphql-socket.ts';
import { adaAndBob, hostClient, PASSWORD } from '../helpers/host-client.ts';

const events = createEvents<{ shouted: { text: string } }>({});

@ObjectType()
class Report {
  @Field(() => String)
  title!: string;

  @Field(() => Int)
  @Extensions({ authorize: { policy: 'PremiumOnly' } })
  revenue!: number;

  owner!: string;
}

@Resolver(() => Report)
class ReportsResolver {
  constructor(@Inject(AuthorizationService) private readonly authorization: AuthorizationService) {}

  @Query(() => String)
  hello() {
    return 'world';
  }

  @Query(() => String)
  @Authorize()
  me(@CurrentUser() user: ClaimsPrincipal) {
    return user.name;
  }

  @Query(() => String, { nullable: true })
  @Authorize({ policy: 'PremiumOnly' })
  forecast() {
    return 'sunny';
  }

  @Query(() => Report)
  report() {
    return { title: 'Q3', revenue: 42, owner: 'bob' };
  }

  /** A resource check in a field resolver: only the report's owner reads its notes. */
  @ResolveField(() => String, { nullable: true })
  async notes(@Parent() report: Report, @CurrentUser() user: ClaimsPrincipal) {
    await this.authorization.authorize(user, report, [ownerOnly]);
    return `notes of ${report.owner}`;
  }

  @Mutation(() => String)
  @Authorize()
  async shout(@Args('text', { type: () => String }) text: string) {
    await events.publish('shouted', { text });
    return text;
  }

  @Subscription(() => String, { resolve: (event: { text: string }) => event.text })
  @Extensions({ authorize: { policy: 'PremiumOnly' } })
  shouted() {
    return events.subscribe('shouted');
  }
}

// What `emitDecoratorMetadata` writes for `shout(text: string)` (NestJS's code-first `@Args` reads
// it); the test runner compiles without it.
Reflect.defineMetadata('design:paramtypes', [String], ReportsResolver.prototype, 'shout');

const ownerOnly = new AssertionRequirement((context) => (context.resource as { owner: string }).owner === context.user.name, 'the owner');

const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();
const gatehouseModule = GatehouseModule.forRoot({
  settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' },
  policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy>,
  logger: pino({ level: 'silent' }),
});

function appModule(graphql: DynamicModule): new () => object {
  @Module({ imports: [gatehouseModule, graphql], providers: [ReportsResolver] })
  class AppModule {}
  return AppModule;
}

const apollo = GraphQLModule.forRootAsync<ApolloDriverConfig>({
  driver: ApolloDriver,
  inject: [GatehouseGraphQL],
  useFactory: (gatehouse: GatehouseGraphQL) => ({ autoSchemaFile: true, ...gatehouse.apollo() }),
});

const mercurius = GraphQLModule.forRootAsync<MercuriusDriverConfig>({
  driver: MercuriusDriver,
  inject: [GatehouseGraphQL],
  useFactory: (gatehouse: GatehouseGraphQL) => ({ autoSchemaFile: true, ...gatehouse.mercurius() }),
});

/** graphql-ws beside Mercurius, on the application's server, with Gatehouse's socket rules. */
function socketsBeside(app: INestApplication): () => Promise<void> {
  const { schema } = app.get(GraphQLSchemaHost);
  const sockets = new WebSocketServer({ server: app.getHttpServer() as Server, path: '/graphql' });
  const served = useServer({ schema, ...app.get(GatehouseGraphQL).authorization().socketOptions() }, sockets);
  return async () => {
    await served.dispose();
  };
}

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

describe.each([
  ['the Apollo driver on platform-express', () => NestFactory.create(appModule(apollo), new ExpressAdapter(), { logger: false }), false],
  [
    'the Apollo driver on platform-express without its body parser (the GraphQL path parses its own)',
    async () => {
      const app = await NestFactory.create(appModule(apollo), new ExpressAdapter(), { logger: false, bodyParser: false });
      app.use('/graphql', json());
      return app;
    },
    false,
  ],
  ['the Apollo driver on platform-fastify', () => NestFactory.create(appModule(apollo), new FastifyAdapter(), { logger: false }), false],
  ['the Mercurius driver on platform-fastify', () => NestFactory.create(appModule(mercurius), new FastifyAdapter(), { logger: false }), true],
])('@nestjs/graphql with %s', (_name, create, besideMercurius) => {
  let app: INestApplication;
  let url: string;
  let tokens: { ada: string; bob: string };
  let stopSockets: (() => Promise<void>) | undefined;
  const client = hostClient(() => url);

  beforeAll(async () => {
    app = await create();
    await app.init();
    if (besideMercurius) stopSockets = socketsBeside(app);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    tokens = await adaAndBob(app.get<Gatehouse>(GATEHOUSE), client);
  });

  afterAll(async () => {
    await stopSockets?.();
    await app?.close();
  });

  const post = (query: string, token?: string) =>
    fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query }),
    });
  const query = async (text: string, token?: string) => {
    const response = await post(text, token);
    expect(response.status).toBe(200);
    return (await response.json()) as Answer;
  };
  const codes = (answer: Answer) => answer.errors?.map((error) => error.extensions?.code);

  it('answers an anonymous caller the open fields, and UNAUTHENTICATED for a resolver under @Authorize()', async () => {
    const answer = await query('{ hello me }');
    expect(answer.data).toBeNull();
    expect(codes(answer)).toEqual(['UNAUTHENTICATED']);
    expect((await query('{ hello }')).data).toEqual({ hello: 'world' });
  });

  it("gives @CurrentUser() the bearer's principal, and FORBIDDEN where @Authorize({ policy }) refuses", async () => {
    expect((await query('{ me forecast }', tokens.ada)).data).toEqual({ me: 'ada', forecast: 'sunny' });
    const bobs = await query('{ me forecast }', tokens.bob);
    expect(bobs.data).toEqual({ me: 'bob', forecast: null });
    expect(codes(bobs)).toEqual(['FORBIDDEN']);
  });

  it("checks a field's @Extensions({ authorize }) rule and a resource check in a field resolver", async () => {
    expect((await query('{ report { title revenue } }', tokens.ada)).data).toEqual({ report: { title: 'Q3', revenue: 42 } });
    const bobs = await query('{ report { title revenue } }', tokens.bob);
    expect(bobs.data).toBeNull();
    expect(codes(bobs)).toEqual(['FORBIDDEN']);
    const adas = await query('{ report { notes } }', tokens.ada);
    expect(adas.data).toEqual({ report: { notes: null } });
    expect(codes(adas)).toEqual(['FORBIDDEN']);
    expect((await query('{ report { notes } }', tokens.bob)).data).toEqual({ report: { notes: 'notes of bob' } });
  });

  it('refuses an invalid bearer token with 401 and its challenge before any resolver runs', async () => {
    const response = await post('{ hello }', 'not-a-token');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expect(await response.text()).not.toContain('world');
  });

  it('delivers events over graphql-ws to a premium subscriber, refuses one without the policy, and closes a socket with 4403 when its role is taken away', async () => {
    const ws = url.replace(/^http/, 'ws');
    const gatehouse = app.get<Gatehouse>(GATEHOUSE);
    const carol = await gatehouse.users.create({ email: 'carol@example.com', userName: 'carol', password: PASSWORD, emailConfirmed: true });
    await gatehouse.users.addRole(carol.id, 'Premium');
    const carols = openSocket(`${ws}/graphql`, { connectionParams: { authorization: `Bearer ${await client.signIn('carol@example.com')}` } });
    const bobs = openSocket(`${ws}/graphql`, { connectionParams: { authorization: `Bearer ${tokens.bob}` } });
    await Promise.all([carols.connected, bobs.connected]);
    const carolsEvents = carols.subscribe('subscription { shouted }');
    const bobsEvents = bobs.subscribe('subscription { shouted }');
    await expect.poll(() => bobsEvents.received[0]?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    await expect.poll(async () => {
      await query('mutation { shout(text: "hi") }', tokens.ada);
      return carolsEvents.received.length;
    }).toBeGreaterThan(0);
    expect(carolsEvents.received[0]?.data).toEqual({ shouted: 'hi' });
    await gatehouse.users.removeRole(carol.id, 'Premium');
    expect((await carols.closedWithin(5_000)).code).toBe(4403);
    await bobs.dispose();
  });
});
