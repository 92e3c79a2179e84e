import type { SessionEnding } from '../../membership/session-ending.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { defineEndpoint, type Endpoint, inGroup } from '../endpoint.ts';
import { ADMIN_GROUP } from './admin-group.ts';
import { IdParams } from '../id-params.ts';
import { sessionJson } from '../session-json.ts';
import { adminActor } from './admin-actor.ts';
import { existingUser } from './existing-user.ts';

/** What the admin API's sessions endpoints call. */
export interface AdminSessionUseCases {
  readonly users: Pick<UserAdministration, 'findById'>;
  readonly sessions: Pick<SessionEnding, 'list' | 'endAll'>;
}

/**
 * A user's sessions for the admin API (docs/reference/http.md): `GET /admin/users/:id/sessions`
 * lists them as the user sees them (none is `current`), and `DELETE /admin/users/:id/sessions`
 * ends every one of them, cookie sessions and refresh families, with their sockets and access
 * tokens. Unlike a lock, the user may sign in again at once.
 */
export function adminSessionEndpoints({ users, sessions }: AdminSessionUseCases): readonly Endpoint[] {
  const list = defineEndpoint({
    method: 'GET',
    path: '/admin/users/:id/sessions',
    authorization: {},
    params: IdParams,
    async handle(request) {
      const user = await existingUser(users, request.params.id!);
      return { status: 200, body: (await sessions.list(user.id)).map(sessionJson) };
    },
  });

  const endAll = defineEndpoint({
    method: 'DELETE',
    path: '/admin/users/:id/sessions',
    authorization: {},
    params: IdParams,
    successStatus: 204,
    async handle(request) {
      const user = await existingUser(users, request.params.id!);
      await sessions.endAll(user.id, adminActor(request));
      return { status: 204 };
    },
  });

  return inGroup(ADMIN_GROUP, [list, endAll]);
}
