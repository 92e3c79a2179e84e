/**
 * The service's own routes on Express, as Express users write them: `auth.authorize(…)` and
 * `auth.allowAnonymous()` among a route's handlers, a router as a group, resource checks with
 * `req.authorize`, bodies read by `auth.json()` once the route has decided the caller (401 before
 * any 400, 413 or 415) and checked by `auth.validate`. The same routes as the Fastify host's
 * (server/routes/), on the same stores and policies.
 */
import express, { type Router } from 'express';
import { API_KEY_SCHEME, GatehouseError, ProblemError } from 'gatehouse-auth';
import type { ExpressGatehouse } from 'gatehouse-auth/express';
import { OrgAdminRequirement } from '../policies/org-admin.ts';
import { OwnershipRequirement } from '../policies/ownership.ts';
import { DocumentInput, IdParams, SettingsInput } from '../routes/schemas.ts';
import type { ServiceData } from '../storage/service-data.ts';

/** How long a balancer should wait before it asks an instance that is not ready again. */
const NOT_READY_RETRY_AFTER_SECONDS = 5;
const ownership = new OwnershipRequirement();
const orgAdmin = new OrgAdminRequirement();

export function serviceRoutes(auth: ExpressGatehouse, { documents, organizationSettings }: Pick<ServiceData, 'documents' | 'organizationSettings'>): Router {
  const { clock } = auth.gatehouse;
  const routes = express.Router();

  routes.get('/health', auth.allowAnonymous(), (_req, res) => {
    res.status(200).end();
  });
  routes.get('/health/ready', auth.allowAnonymous(), async (_req, res) => {
    const { ready, degraded, checks } = await auth.gatehouse.readiness();
    res.setHeader('cache-control', 'no-store');
    if (ready) return void res.json({ status: degraded ? 'degraded' : 'ready', checks });
    res.setHeader('retry-after', String(NOT_READY_RETRY_AFTER_SECONDS));
    throw new ProblemError(503, 'NOT_READY', 'A dependency of this instance does not answer.', { checks });
  });

  // The fallback policy: a signed-in caller.
  routes.get('/me', (req, res) => {
    res.type('text/plain; charset=utf-8').send(req.user.name ?? '');
  });

  routes.get('/content/mature', auth.authorize({ policy: 'MinimumAge' }), (_req, res) => {
    res.json({ content: 'mature', policy: 'MinimumAge' });
  });
  routes.get('/content/premium', auth.authorize({ policy: 'PremiumOnly' }), (_req, res) => {
    res.json({ content: 'premium', policy: 'PremiumOnly' });
  });
  routes.get('/reports/daily', auth.authorize({ policy: 'BusinessHours' }), (_req, res) => {
    res.json({ report: 'daily', policy: 'BusinessHours' });
  });
  routes.get('/integrations/whoami', auth.authorize({ schemes: [API_KEY_SCHEME] }), (req, res) => {
    res.json({ client: req.user.findFirst('client')?.value ?? null });
  });

  // Documents belong to whoever created them: every read and write is the resource check `Ownership`.
  const documentRoutes = express.Router();
  documentRoutes.use(auth.authorize({ policy: 'User' }));
  const ownedDocument = async (req: express.Request) => {
    const document = await documents.find(Number(req.params.id));
    if (!document) throw GatehouseError.notFound('There is no such document.');
    await req.authorize(document, ownership);
    return document;
  };
  documentRoutes.post('/', auth.json(), auth.validate({ body: DocumentInput }), async (req, res) => {
    const { title, body } = req.body as { title: string; body: string };
    res.status(201).json(await documents.create({ ownerId: Number(req.user.subject), title, body, createdAt: clock.now() }));
  });
  documentRoutes.get('/:id', auth.validate({ params: IdParams }), async (req, res) => {
    res.json(await ownedDocument(req));
  });
  documentRoutes.put('/:id', auth.json(), auth.validate({ params: IdParams, body: DocumentInput }), async (req, res) => {
    const document = await ownedDocument(req);
    const updated = await documents.update(document.id, req.body as { title: string; body: string });
    if (!updated) throw GatehouseError.notFound('There is no such document.');
    res.json(updated);
  });
  documentRoutes.delete('/:id', auth.validate({ params: IdParams }), async (req, res) => {
    const document = await ownedDocument(req);
    await documents.delete(document.id);
    res.status(204).end();
  });
  routes.use('/documents', documentRoutes);

  // Organizations are Gatehouse's routes; their settings are guarded by the resource check `OrgAdmin`.
  const organizationOf = async (req: express.Request) => {
    const organization = await auth.gatehouse.organizations.find(Number(req.params.id));
    if (!organization) throw GatehouseError.notFound('There is no such organization.');
    await req.authorize(organization, orgAdmin);
    return organization;
  };
  routes.get('/orgs/:id/settings', auth.validate({ params: IdParams }), async (req, res) => {
    const organization = await organizationOf(req);
    res.json({ organizationId: organization.id, settings: await organizationSettings.settingsOf(organization.id) });
  });
  routes.put('/orgs/:id/settings', auth.json(), auth.validate({ params: IdParams, body: SettingsInput }), async (req, res) => {
    const organization = await organizationOf(req);
    const settings = await organizationSettings.replace(organization.id, (req.body as { settings: Record<string, unknown> }).settings);
    res.json({ organizationId: organization.id, settings });
  });
  return routes;
}
