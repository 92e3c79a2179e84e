import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OrgAdminRequirement } from '../policies/org-admin.ts';
import { GatehouseError } from 'gatehouse-auth';
import type { OrganizationStore } from '../storage/organization-store.ts';
import { IdParams, OrganizationInput, SettingsInput } from './schemas.ts';

type ById = { Params: Static<typeof IdParams> };
const orgAdmin = new OrgAdminRequirement();

/** Organizations: created by `SuperAdmin`; settings guarded by the resource check `OrgAdmin`. */
export async function organizationRoutes(app: FastifyInstance, { organizations }: { organizations: OrganizationStore }): Promise<void> {
  const { clock } = app.gatehouse;

  app.post<{ Body: Static<typeof OrganizationInput> }>(
    '/orgs',
    { schema: { body: OrganizationInput }, config: { authorization: { authorize: [{ roles: ['SuperAdmin'] }] }, successStatus: 201 } },
    async (request, reply) => {
      const organization = await organizations.create({ name: request.body.name, createdAt: clock.now() });
      return reply.code(201).send({ id: organization.id, name: organization.name });
    },
  );

  app.get<ById>('/orgs/:id/settings', { schema: { params: IdParams } }, async (request) => {
    const organization = await organizations.find(Number(request.params.id));
    if (!organization) throw GatehouseError.notFound('There is no such organization.');
    await request.authorize(organization, orgAdmin);
    return { organizationId: organization.id, settings: organization.settings };
  });

  app.put<ById & { Body: Static<typeof SettingsInput> }>(
    '/orgs/:id/settings',
    { schema: { params: IdParams, body: SettingsInput } },
    async (request) => {
      const organization = await organizations.find(Number(request.params.id));
      if (!organization) throw GatehouseError.notFound('There is no such organization.');
      await request.authorize(organization, orgAdmin);
      const updated = await organizations.updateSettings(organization.id, request.body.settings);
      if (!updated) throw GatehouseError.notFound('There is no such organization.');
      return { organizationId: updated.id, settings: updated.settings };
    },
  );
}
