/**
 * The service's own routes on Hono, as Hono users write them: `auth.authorize(…)` and
 * `auth.allowAnonymous()` among a route's handlers, `use` on a path as a group, resource checks
 * with `c.var.authorize`, bodies read and checked by `auth.validate` once the route has decided the
 * caller (401 before any 400, 413 or 415). The same routes as the Fastify host's (server/routes/),
 * on the same stores and policies.
 */
import { Hono } from 'hono';
import { API_KEY_SCHEME, GatehouseError, ProblemError } from 'gatehouse-auth';
import type { GatehouseEnv, HonoGatehouse } from 'gatehouse-auth/hono';
import { OrgAdminRequirement } from '../policies/org-admin.ts';
import { OwnershipRequirement } from '../policies/ownership.ts';
import { DocumentInput, IdParams, SettingsInput } from '../routes/schemas.ts';
import type { ServiceData } from '../storage/service-data.ts';

/** How long a balancer should wait before it asks an instance that is not ready again. */
const NOT_READY_RETRY_AFTER_SECONDS = 5;
const ownership = new OwnershipRequirement();
const orgAdmin = new OrgAdminRequirement();

export function serviceRoutes(auth: HonoGatehouse, { documents, organizationSettings }: Pick<ServiceData, 'documents' | 'organizationSettings'>): Hono<GatehouseEnv> {
  const { clock } = auth.gatehouse;
  const routes = new Hono<GatehouseEnv>();

  routes.get('/health', auth.allowAnonymous(), (c) => c.body(null, 200));
  routes.get('/health/ready', auth.allowAnonymous(), async (c) => {
    const { ready, degraded, checks } = await auth.gatehouse.readiness();
    c.header('cache-control', 'no-store');
    if (ready) return c.json({ status: degraded ? 'degraded' : 'ready', checks });
    c.header('retry-after', String(NOT_READY_RETRY_AFTER_SECONDS));
    throw new ProblemError(503, 'NOT_READY', 'A dependency of this instance does not answer.', { checks });
  });

  // The fallback policy: a signed-in caller.
  routes.get('/me', (c) => c.text(c.var.user.name ?? ''));

  routes.get('/content/mature', auth.authorize({ policy: 'MinimumAge' }), (c) => c.json({ content: 'mature', policy: 'MinimumAge' }));
  routes.get('/content/premium', auth.authorize({ policy: 'PremiumOnly' }), (c) => c.json({ content: 'premium', policy: 'PremiumOnly' }));
  routes.get('/reports/daily', auth.authorize({ policy: 'BusinessHours' }), (c) => c.json({ report: 'daily', policy: 'BusinessHours' }));
  routes.get('/integrations/whoami', auth.authorize({ schemes: [API_KEY_SCHEME] }), (c) => c.json({ client: c.var.user.findFirst('client')?.value ?? null }));

  // Documents belong to whoever created them: every read and write is the resource check `Ownership`.
  routes.use('/documents', auth.authorize({ policy: 'User' }));
  routes.use('/documents/*', auth.authorize({ policy: 'User' }));
  const ownedDocument = async (authorize: GatehouseEnv['Variables']['authorize'], id: string) => {
    const document = await documents.find(Number(id));
    if (!document) throw GatehouseError.notFound('There is no such document.');
    await authorize(document, ownership);
    return document;
  };
  routes.post('/documents', auth.validate({ json: DocumentInput }), async (c) => {
    const { title, body } = c.req.valid('json');
    return c.json(await documents.create({ ownerId: Number(c.var.user.subject), title, body, createdAt: clock.now() }), 201);
  });
  routes.get('/documents/:id', auth.validate({ param: IdParams }), async (c) => c.json(await ownedDocument(c.var.authorize, c.req.valid('param').id)));
  routes.put('/documents/:id', auth.validate({ param: IdParams, json: DocumentInput }), async (c) => {
    const document = await ownedDocument(c.var.authorize, c.req.valid('param').id);
    const updated = await documents.update(document.id, c.req.valid('json'));
    if (!updated) throw GatehouseError.notFound('There is no such document.');
    return c.json(updated);
  });
  routes.delete('/documents/:id', auth.validate({ param: IdParams }), async (c) => {
    const document = await ownedDocument(c.var.authorize, c.req.valid('param').id);
    await documents.delete(document.id);
    return c.body(null, 204);
  });

  // Organizations are Gatehouse's routes; their settings are guarded by the resource check `OrgAdmin`.
  const organizationOf = async (authorize: GatehouseEnv['Variables']['authorize'], id: string) => {
    const organization = await auth.gatehouse.organizations.find(Number(id));
    if (!organization) throw GatehouseError.notFound('There is no such organization.');
    await authorize(organization, orgAdmin);
    return organization;
  };
  routes.get('/orgs/:id/settings', auth.validate({ param: IdParams }), async (c) => {
    const organization = await organizationOf(c.var.authorize, c.req.valid('param').id);
    return c.json({ organizationId: organization.id, settings: await organizationSettings.settingsOf(organization.id) });
  });
  routes.put('/orgs/:id/settings', auth.validate({ param: IdParams, json: SettingsInput }), async (c) => {
    const organization = await organizationOf(c.var.authorize, c.req.valid('param').id);
    const settings = await organizationSettings.replace(organization.id, c.req.valid('json').settings);
    return c.json({ organizationId: organization.id, settings });
  });
  return routes;
}
