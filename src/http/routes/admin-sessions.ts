import type { Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { SessionEnding } from '../../membership/session-ending.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { GatehouseError } from '../../security/errors.ts';
import { userIdOf } from '../pipeline.ts';
import { sessionJson } from './account-sessions.ts';
import { IdParams } from './route-context.ts';

type ById = { Params: Static<typeof IdParams> };

/** What the admin API's sessions routes call. */
export interface AdminSessionUseCases {
  readonly users: Pick<UserAdministration, 'findById'>;
  readonly sessions: SessionEnding;
}

/**
 * A user's sessions for the admin API, under the group policy `AdminOnly` (docs/reference/http.md):
 * `GET /admin/users/:id/sessions` lists them as the user sees them (none is `current`), and
 * `DELETE /admin/users/:id/sessions` ends every one of them, cookie sessions and refresh families,
 * with their sockets and access tokens. Unlike a lock, the user may sign in again at once.
 */
export async function adminSessionRoutes(app: FastifyInstance, { users, sessions }: AdminSessionUseCases): Promise<void> {
  async function existingUserId(id: string): Promise<number> {
    const user = await users.findById(Number(id));
    if (!user) throw GatehouseError.notFound('There is no such user.');
    return user.id;
  }

  app.get<ById>('/admin/users/:id/sessions', { schema: { params: IdParams } }, async (request) => {
    const userId = await existingUserId(request.params.id);
    return (await sessions.list(userId)).map(sessionJson);
  });

  app.delete<ById>('/admin/users/:id/sessions', { schema: { params: IdParams }, config: { successStatus: 204 } }, async (request, reply) => {
    const userId = await existingUserId(request.params.id);
    await sessions.endAll(userId, { by: userIdOf(request), ip: request.ip });
    return reply.code(204).send();
  });
}
