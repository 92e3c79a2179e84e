import type { FastifyInstance } from 'fastify';
import { ProblemError } from 'gatehouse-auth';

/** How long a balancer should wait before it asks an instance that is not ready again. */
const NOT_READY_RETRY_AFTER_SECONDS = 5;

/**
 * `GET /health`: liveness, 200 with an empty body while the process serves, whatever its
 * dependencies do. `GET /health/ready`: readiness, 200 when the store answers and the
 * revocations are current (`degraded` when Redis, where set, is away: the instance serves on its
 * own view), else 503 problem+json naming what is wrong; each check within 2 seconds.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const anonymous = { config: { authorization: { allowAnonymous: true } } };
  app.get('/health', anonymous, async (_request, reply) => reply.code(200).send());
  app.get('/health/ready', anonymous, async (_request, reply) => {
    const { ready, degraded, checks } = await app.gatehouse.readiness();
    reply.header('cache-control', 'no-store');
    if (ready) return reply.code(200).send({ status: degraded ? 'degraded' : 'ready', checks });
    reply.header('retry-after', String(NOT_READY_RETRY_AFTER_SECONDS));
    throw new ProblemError(503, 'NOT_READY', 'A dependency of this instance does not answer.', { checks });
  });
}
