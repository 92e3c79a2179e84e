/**
 * Gatehouse on NestJS, driven over HTTP as a client would, on platform-express and on
 * platform-fastify: a controller under `@Authorize()` with a handler that opens itself
 * (`@AllowAnonymous()`), a handler under a policy, a resource check through the injected
 * `AuthorizationService`, `@CurrentUser()`, Gatehouse's own endpoints, and the answers of refusals.
 */
import 'reflect-metadata';
import { Controller, Get, Inject, type INestApplication, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssertionRequirement, type AuthorizationPolicy, AuthorizationPolicyBuilder, type ClaimsPrincipal, type Gatehouse, type PolicyName, ProblemError } from 'gatehouse-auth';
import { AllowAnonymous, Authorize, AuthorizationService, CurrentUser, GATEHOUSE, GatehouseModule } from 'gatehouse-auth/nestjs';
import { adaAndBob, expectGatehouseEndpoints, expectPremiumPolicy, expectRoleTakenAwayAtOnce, hostClient, PASSWORD } from '../helpers/host-client.ts';

/** Met by the caller whose name is the resource's owner. */
const ownerRequirement = new AssertionRequirement((context) => (context.resource as { owner: string }).owner === context.user.name, 'the owner');

@Controller('account')
@Authorize()
class AccountController {
  @Get('me')
  me(@CurrentUser() user: ClaimsPrincipal) {
    return { name: user.name };
  }

  @Get('status')
  @AllowAnonymous()
  status(@CurrentUser() user: ClaimsPrincipal) {
    return { authenticated: user.isAuthenticated };
  }
}

@Controller()
class ReportsController {
  constructor(@Inject(AuthorizationService) private readonly authorization: AuthorizationService) {}

  @Get('reports')
  @Authorize({ policy: 'PremiumOnly' })
  reports() {
    return { reports: [] };
  }

  @Get('documents/:owner')
  async document(@CurrentUser() user: ClaimsPrincipal, @Param('owner') owner: string) {
    await this.authorization.authorize(user, { owner }, [ownerRequirement]);
    return { owner };
  }

  @Get('invoices/paid')
  @AllowAnonymous()
  paid() {
    throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: 7 });
  }
}

const premium = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Premium').build();

@Module({
  imports: [
    GatehouseModule.forRoot({
      settings: { databaseUrl: 'sqlite::memory:', publicUrl: 'http://localhost:3000' },
      policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy>,
      logger: pino({ level: 'silent' }),
    }),
  ],
  controllers: [AccountController, ReportsController],
})
class AppModule {}

/** The same application with its options made by a factory of its own providers. */
@Module({ providers: [{ provide: 'DATABASE_URL', useValue: 'sqlite::memory:' }], exports: ['DATABASE_URL'] })
class SettingsModule {}

@Module({
  imports: [
    GatehouseModule.forRootAsync({
      imports: [SettingsModule],
      inject: ['DATABASE_URL'],
      useFactory: (databaseUrl: string) => ({
        settings: { databaseUrl, publicUrl: 'http://localhost:3000' },
        policies: { PremiumOnly: premium } as Record<PolicyName, AuthorizationPolicy>,
        logger: pino({ level: 'silent' }),
      }),
    }),
  ],
  controllers: [AccountController, ReportsController],
})
class AsyncAppModule {}

describe('GatehouseModule.forRootAsync', () => {
  it('takes its options from the application’s providers, and closes Gatehouse with the application', async () => {
    const app = await NestFactory.create(AsyncAppModule, new ExpressAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    expect((await fetch(`${url}/account/me`)).status).toBe(401);
    expect((await fetch(`${url}/.well-known/jwks.json`)).status).toBe(200);
    const gatehouse = app.get<Gatehouse>(GATEHOUSE);
    await app.close();
    await expect(gatehouse.users.create({ email: 'late@example.com', password: PASSWORD })).rejects.toThrow();
  });
});

describe.each([
  ['platform-express', () => new ExpressAdapter()],
  ['platform-fastify', () => new FastifyAdapter()],
])('Gatehouse on NestJS, %s', (_platform, adapter) => {
  let app: INestApplication;
  let url: string;
  let ada: string;
  let bob: string;

  const client = hostClient(() => url);
  const { get } = client;

  beforeAll(async () => {
    app = await NestFactory.create(AppModule, adapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    ({ ada, bob } = await adaAndBob(app.get<Gatehouse>(GATEHOUSE), client));
  });

  afterAll(() => app.close());

  it("serves a controller's handler under its @Authorize() to a bearer (200), and 401 problem+json without one", async () => {
    const me = await get('/account/me', ada);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ name: 'ada' });
    expect(me.headers.get('x-content-type-options')).toBe('nosniff');
    expect(me.headers.get('cache-control')).toBe('no-store');
    const anonymous = await get('/account/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await get('/account/me', `${ada.slice(0, -4)}AAAA`)).status).toBe(401);
  });

  it('lets @AllowAnonymous() on a handler beat its controller, and reads no credentials there', async () => {
    const status = await get('/account/status', 'not-a-token');
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ authenticated: false });
  });

  it("answers a handler's policy: 200 for a member, 403 problem+json for another caller, 401 for none", async () => {
    await expectPremiumPolicy(client, '/reports', { ada, bob });
  });

  it('applies the fallback policy to a handler that says nothing, and answers a refused resource check with 403', async () => {
    expect((await get('/documents/ada')).status).toBe(401);
    expect((await get('/documents/ada', ada)).status).toBe(200);
    const refused = await get('/documents/ada', bob);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it("serves Gatehouse's own endpoints: the JWKS, the profile of a bearer, and a bad sign-in body as 400", async () => {
    await expectGatehouseEndpoints(client, url, ada);
  });

  it("answers the application's ProblemError as problem+json", async () => {
    const paid = await get('/invoices/paid');
    expect(paid.status).toBe(409);
    expect(paid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await paid.json()).toMatchObject({ status: 409, code: 'INVOICE_PAID', invoiceId: 7 });
  });

  it('refuses a role taken away at once: the next request with the older token is 401', async () => {
    await expectRoleTakenAwayAtOnce(app.get<Gatehouse>(GATEHOUSE), client, '/reports');
  });
});
