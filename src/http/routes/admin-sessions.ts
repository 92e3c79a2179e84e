import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { GatehouseError } from '../../security/errors.ts';
import { userIdOf } from '../pipeline.ts';
import { sessionJson } from './account-sessions.ts';
import { IdParams, type RouteContext } from './route-context.ts';

type ById = { Params: Static<typeof IdParams> };

/**
 * A user's sessions for the admin API, under the group policy `AdminOnly` (docs/reference/http.md):
 * `GET /admin/users/:id/sessions` lists them as the user sees them (none is `current`), and
 * `DELETE /admin/users/:id/sessions` ends every one of them, cookie sessions and refresh families,
 * with their sockets and access tokens. Unlike a lock, the user may sign in again at once.
 */
export async function adminSessionRoutes(app: FastifyInstance, { services }: RouteContext): Promise<void> {
  const { users, userSessions, audit, revocationFeed } = services;

  async function existingUserId(id: string): Promise<number> {
    const user = await users.findById(Number(id));
    if (!user) throw GatehouseError.notFound('There is no such user.');
    return user.id;
  }

  app.get<ById>('/admin/users/:id/sessions', { schema: { params: IdParams } }, async (request) => {
    const userId = await existingUserId(request.params.id);
    return (await userSessions.list(userId)).map(sessionJson);
  });

  app.delete<ById>('/admin/users/:id/sessions', { schema: { params: IdParams }, config: { successStatus: 204 } }, async (request, reply) => {
    const userId = await existingUserId(request.params.id);
    const count = await userSessions.endAll(userId);
    await audit.record('sessions.revoked', { userId, ip: request.ip, detail: { count, by: userIdOf(request) } });
    await revocationFeed.changed();
    return reply.code(204).send();
  });
}
