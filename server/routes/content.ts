import type { FastifyInstance } from 'fastify';

/** Endpoints that exist to show policies at work: each names one. */
export async function contentRoutes(app: FastifyInstance): Promise<void> {
  app.get('/content/mature', { config: { authorization: { authorize: [{ policy: 'MinimumAge' }] } } }, async () => ({
    content: 'mature',
    policy: 'MinimumAge',
  }));
  app.get('/content/premium', { config: { authorization: { authorize: [{ policy: 'PremiumOnly' }] } } }, async () => ({
    content: 'premium',
    policy: 'PremiumOnly',
  }));
  app.get('/reports/daily', { config: { authorization: { authorize: [{ policy: 'BusinessHours' }] } } }, async () => ({
    report: 'daily',
    policy: 'BusinessHours',
  }));
}
