/**
 * The invoices API of `examples/invoices` on NestJS 11: the same policies, resource handler and
 * table, served by a controller. Gatehouse's membership and tokens live under `/identity`; the
 * invoices controller is under the `Customers` policy; its health check opens itself; bodies and
 * ids are TypeBox schemas checked after the guard; resource checks go through the injected
 * `AuthorizationService`; the bookkeeping export asks for an API key.
 */
import 'reflect-metadata';
import { Controller, Get, Inject, type INestApplication, Module, Patch, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Type } from '@sinclair/typebox';
import { type ClaimsPrincipal, ClaimTypes, type Gatehouse, GatehouseError, ProblemError } from 'gatehouse-auth';
import {
  AllowAnonymous,
  applyServerSettings,
  Authorize,
  AuthorizationService,
  type Config,
  type createLogger,
  CurrentUser,
  GATEHOUSE,
  GatehouseModule,
  ValidBody,
  ValidParams,
  ValidQuery,
} from 'gatehouse-auth/nestjs';
import { createStore, type Store } from 'gatehouse-auth/store';
import { type InvoiceChanges, InvoiceRepository, invoiceMigrations, type InvoiceSchema } from '../invoices/invoice-database.ts';
import type { InvoiceStatus } from '../invoices/invoice.ts';
import { invoiceHandlers, invoicePolicies } from '../invoices/policies.ts';

/** Where Gatehouse's endpoints live: `/identity/auth/token`, `/identity/account/register`, … */
export const IDENTITY_PREFIX = '/identity';

const Status = Type.Union([Type.Literal('draft'), Type.Literal('sent'), Type.Literal('paid')]);
const Customer = Type.String({ minLength: 1, maxLength: 200 });
const AmountCents = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });
const NewInvoice = Type.Object({ customer: Customer, amountCents: AmountCents }, { additionalProperties: false });
const Changes = Type.Object(
  { customer: Type.Optional(Customer), amountCents: Type.Optional(AmountCents), status: Type.Optional(Status) },
  { additionalProperties: false, minProperties: 1 },
);
const InvoiceId = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,9}$' }) });
const ExportQuery = Type.Object({ status: Type.Optional(Status) });

/** The token of the application's repository. */
const INVOICES = Symbol('InvoiceRepository');

/** `/invoices`: every handler needs a signed-in person unless it says otherwise; each invoice is checked against its owner. */
@Controller('invoices')
@Authorize({ policy: 'Customers' })
class InvoicesController {
  constructor(
    @Inject(INVOICES) private readonly invoices: InvoiceRepository,
    @Inject(AuthorizationService) private readonly authorization: AuthorizationService,
    @Inject(GATEHOUSE) private readonly gatehouse: Gatehouse,
  ) {}

  @Get('health')
  @AllowAnonymous()
  health() {
    return { status: 'ok' };
  }

  @Get()
  async list(@CurrentUser() user: ClaimsPrincipal) {
    return { invoices: await this.invoices.listOwnedBy(Number(user.subject)) };
  }

  @Post()
  create(@CurrentUser() user: ClaimsPrincipal, @ValidBody(NewInvoice) invoice: { customer: string; amountCents: number }) {
    return this.invoices.create({ ownerId: Number(user.subject), ...invoice }, new Date(this.gatehouse.clock.now()));
  }

  @Get(':id')
  async read(@CurrentUser() user: ClaimsPrincipal, @ValidParams(InvoiceId) { id }: { id: string }) {
    const invoice = await this.found(id);
    await this.authorization.authorize(user, invoice, 'ReadInvoice');
    return invoice;
  }

  @Patch(':id')
  async update(@CurrentUser() user: ClaimsPrincipal, @ValidParams(InvoiceId) { id }: { id: string }, @ValidBody(Changes) changes: InvoiceChanges) {
    const invoice = await this.found(id);
    // Authorized first: only the owner learns that the invoice is paid.
    await this.authorization.authorize(user, invoice, 'UpdateInvoice');
    const updated = await this.invoices.updateUnpaid(invoice.id, changes);
    if (updated === undefined) throw new ProblemError(409, 'INVOICE_PAID', 'A paid invoice cannot change.', { invoiceId: invoice.id });
    return updated;
  }

  private async found(id: string) {
    const invoice = await this.invoices.find(Number(id));
    if (invoice === undefined) throw GatehouseError.notFound('There is no such invoice.');
    return invoice;
  }
}

/** The integration with an API key: the `Bookkeeping` policy, the `ApiKey` scheme only. */
@Controller('integrations')
class IntegrationsController {
  constructor(@Inject(INVOICES) private readonly invoices: InvoiceRepository) {}

  @Get('invoices')
  @Authorize({ policy: 'Bookkeeping', schemes: ['ApiKey'] })
  async export(@CurrentUser() user: ClaimsPrincipal, @ValidQuery(ExportQuery) { status }: { status?: InvoiceStatus }) {
    return { client: user.findFirst(ClaimTypes.client)?.value, invoices: await this.invoices.listByStatus(status) };
  }
}

export interface InvoicesNestApp {
  readonly app: INestApplication;
  /** Closes the application (and Gatehouse with it), then the store. */
  close(): Promise<void>;
}

/** The application, its tables migrated, initialised (not listening). */
export async function buildInvoicesNestApp({ config, logger }: { config: Config; logger?: ReturnType<typeof createLogger> }): Promise<InvoicesNestApp> {
  // Gatehouse's tables first, then the application's own, in the same database.
  const store: Store = await createStore(config.databaseUrl, { migrations: invoiceMigrations });
  await store.migrate();
  @Module({
    imports: [GatehouseModule.forRoot({ config, store, migrate: false, prefix: IDENTITY_PREFIX, policies: invoicePolicies(), handlers: invoiceHandlers(), ...(logger ? { logger } : {}) })],
    controllers: [InvoicesController, IntegrationsController],
    providers: [{ provide: INVOICES, useValue: new InvoiceRepository(store.database.kysely<InvoiceSchema>()) }],
  })
  class InvoicesModule {}
  // Bodies are read by each handler after the guard (`@ValidBody`): the platform parses none.
  const app = await NestFactory.create(InvoicesModule, new ExpressAdapter(), { bodyParser: false, logger: false });
  applyServerSettings(app);
  await app.init();
  return {
    app,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
