import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { GatehouseError, type Organization } from 'gatehouse-auth';
import { OrgAdminRequirement } from '../policies/org-admin.ts';
import type { OrganizationSettingsStore } from '../storage/organization-store.ts';
import { IdParams, SettingsInput } from './schemas.ts';

type ById = { Params: Static<typeof IdParams> };
const orgAdmin = new OrgAdminRequirement();

/**
 * The settings of an organization, guarded by the resource check `OrgAdmin` (the seed's rule, fed
 * by membership). Organizations themselves, their members and invitations are Gatehouse's routes.
 */
export async function organizationRoutes(app: FastifyInstance, { organizationSettings }: { organizationSettings: OrganizationSettingsStore }): Promise<void> {
  const organizationOf = async (id: string, authorize: (organization: Organization) => Promise<void>) => {
    const organization = await app.gatehouse.organizations.find(Number(id));
    if (!organization) throw GatehouseError.notFound('There is no such organization.');
    await authorize(organization);
    return organization;
  };

  app.get<ById>('/orgs/:id/settings', { schema: { params: IdParams } }, async (request) => {
    const organization = await organizationOf(request.params.id, (resource) => request.authorize(resource, orgAdmin));
    return { organizationId: organization.id, settings: await organizationSettings.settingsOf(organization.id) };
  });

  app.put<ById & { Body: Static<typeof SettingsInput> }>(
    '/orgs/:id/settings',
    { schema: { params: IdParams, body: SettingsInput } },
    async (request) => {
      const organization = await organizationOf(request.params.id, (resource) => request.authorize(resource, orgAdmin));
      return { organizationId: organization.id, settings: await organizationSettings.replace(organization.id, request.body.settings) };
    },
  );
}
