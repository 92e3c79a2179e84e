/**
 * The service's own routes on NestJS, as NestJS users write them: controllers, `@Authorize(…)` on
 * a class or a handler, `@AllowAnonymous()` where anyone may call, `@CurrentUser()`, resource checks
 * through the injected `AuthorizationService`, and bodies and ids checked by `@ValidBody` and
 * `@ValidParams` after the guard (401 before any 400, 413 or 415). The same routes as the Fastify
 * host's (server/routes/), on the same stores and policies.
 */
import { Controller, Delete, Get, Header, HttpCode, Inject, Post, Put, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { API_KEY_SCHEME, type ClaimsPrincipal, type Clock, GatehouseError, ProblemError } from 'gatehouse-auth';
import { AllowAnonymous, Authorize, AuthorizationService, CurrentUser, GATEHOUSE, ValidBody, ValidParams } from 'gatehouse-auth/nestjs';
import type { Gatehouse } from 'gatehouse-auth';
import { OrgAdminRequirement } from '../policies/org-admin.ts';
import { OwnershipRequirement } from '../policies/ownership.ts';
import { DocumentInput, IdParams, SettingsInput } from '../routes/schemas.ts';
import type { ServiceData } from '../storage/service-data.ts';

/** The token of the service's stores. */
export const SERVICE_DATA = Symbol('ServiceData');

/** How long a balancer should wait before it asks an instance that is not ready again. */
const NOT_READY_RETRY_AFTER_SECONDS = 5;
const ownership = new OwnershipRequirement();
const orgAdmin = new OrgAdminRequirement();

type Id = { id: string };

@Controller()
export class HealthController {
  constructor(
    @Inject(GATEHOUSE) private readonly gatehouse: Gatehouse,
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get('health')
  @AllowAnonymous()
  health(): void {}

  @Get('health/ready')
  @AllowAnonymous()
  @Header('cache-control', 'no-store')
  async ready(@Res({ passthrough: true }) response: unknown) {
    const { ready, degraded, checks } = await this.gatehouse.readiness();
    if (ready) return { status: degraded ? 'degraded' : 'ready', checks };
    this.adapterHost.httpAdapter.setHeader(response, 'retry-after', String(NOT_READY_RETRY_AFTER_SECONDS));
    throw new ProblemError(503, 'NOT_READY', 'A dependency of this instance does not answer.', { checks });
  }
}

@Controller()
export class ContentController {
  // The fallback policy: a signed-in caller.
  @Get('me')
  @Header('content-type', 'text/plain; charset=utf-8')
  me(@CurrentUser() user: ClaimsPrincipal): string {
    return user.name ?? '';
  }

  @Get('content/mature')
  @Authorize({ policy: 'MinimumAge' })
  mature() {
    return { content: 'mature', policy: 'MinimumAge' };
  }

  @Get('content/premium')
  @Authorize({ policy: 'PremiumOnly' })
  premium() {
    return { content: 'premium', policy: 'PremiumOnly' };
  }

  @Get('reports/daily')
  @Authorize({ policy: 'BusinessHours' })
  daily() {
    return { report: 'daily', policy: 'BusinessHours' };
  }

  @Get('integrations/whoami')
  @Authorize({ schemes: [API_KEY_SCHEME] })
  whoami(@CurrentUser() user: ClaimsPrincipal) {
    return { client: user.findFirst('client')?.value ?? null };
  }
}

/** Documents belong to whoever created them: every read and write is the resource check `Ownership`. */
@Controller('documents')
@Authorize({ policy: 'User' })
export class DocumentsController {
  constructor(
    @Inject(SERVICE_DATA) private readonly data: ServiceData,
    @Inject(AuthorizationService) private readonly authorization: AuthorizationService,
    @Inject(GATEHOUSE) private readonly gatehouse: Gatehouse,
  ) {}

  private async owned(user: ClaimsPrincipal, id: string) {
    const document = await this.data.documents.find(Number(id));
    if (!document) throw GatehouseError.notFound('There is no such document.');
    await this.authorization.authorize(user, document, ownership);
    return document;
  }

  @Post()
  async create(@CurrentUser() user: ClaimsPrincipal, @ValidBody(DocumentInput) input: { title: string; body: string }) {
    return this.data.documents.create({ ownerId: Number(user.subject), ...input, createdAt: this.clock.now() });
  }

  @Get(':id')
  read(@CurrentUser() user: ClaimsPrincipal, @ValidParams(IdParams) { id }: Id) {
    return this.owned(user, id);
  }

  @Put(':id')
  async replace(@CurrentUser() user: ClaimsPrincipal, @ValidParams(IdParams) { id }: Id, @ValidBody(DocumentInput) input: { title: string; body: string }) {
    const document = await this.owned(user, id);
    const updated = await this.data.documents.update(document.id, input);
    if (!updated) throw GatehouseError.notFound('There is no such document.');
    return updated;
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() user: ClaimsPrincipal, @ValidParams(IdParams) { id }: Id): Promise<void> {
    const document = await this.owned(user, id);
    await this.data.documents.delete(document.id);
  }

  private get clock(): Clock {
    return this.gatehouse.clock;
  }
}

/** The settings of Gatehouse's organizations, guarded by the resource check `OrgAdmin`. */
@Controller('orgs')
export class OrganizationsController {
  constructor(
    @Inject(SERVICE_DATA) private readonly data: ServiceData,
    @Inject(AuthorizationService) private readonly authorization: AuthorizationService,
    @Inject(GATEHOUSE) private readonly gatehouse: Gatehouse,
  ) {}

  private async organizationOf(user: ClaimsPrincipal, id: string) {
    const organization = await this.gatehouse.organizations.find(Number(id));
    if (!organization) throw GatehouseError.notFound('There is no such organization.');
    await this.authorization.authorize(user, organization, orgAdmin);
    return organization;
  }

  @Get(':id/settings')
  async settings(@CurrentUser() user: ClaimsPrincipal, @ValidParams(IdParams) { id }: Id) {
    const organization = await this.organizationOf(user, id);
    return { organizationId: organization.id, settings: await this.data.organizationSettings.settingsOf(organization.id) };
  }

  @Put(':id/settings')
  async replaceSettings(@CurrentUser() user: ClaimsPrincipal, @ValidParams(IdParams) { id }: Id, @ValidBody(SettingsInput) input: { settings: Record<string, unknown> }) {
    const organization = await this.organizationOf(user, id);
    return { organizationId: organization.id, settings: await this.data.organizationSettings.replace(organization.id, input.settings) };
  }
}
