import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkRoleName } from '../../identity/role-name.ts';
import type { Actor } from '../../membership/actor.ts';
import type { AuditTrail } from '../../membership/audit-trail.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { RoleGrantRequirement } from '../../policies/role-grant.ts';
import type { AuthorizationService } from '../../security/authorization/index.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';
import { userIdOf } from '../pipeline.ts';
import { IdParams } from './route-context.ts';

const RoleInput = Type.Object({ role: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
const RoleParams = Type.Object({ id: IdParams.properties.id, role: Type.String({ minLength: 1, maxLength: 64 }) });
const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
    before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,14}$' })),
  },
  { additionalProperties: false },
);
type ById = { Params: Static<typeof IdParams> };

const roleGrant = new RoleGrantRequirement();

/** What the admin API calls: the administration of users and the audit trail, and the engine of its resource check. */
export interface AdminRouteUseCases {
  readonly users: UserAdministration;
  readonly auditTrail: AuditTrail;
  readonly authorization: AuthorizationService;
}

/** Admin changes answer 204 No Content (stated for the OpenAPI document). */
const NO_CONTENT = { successStatus: 204 } as const;
const AUDIT_PAGE_DEFAULT = 50;
const AUDIT_PAGE_MAX = 200;

/**
 * The admin API, all under the group policy `AdminOnly`. Deleting and locking are security
 * changes (every session, refresh family and token of the user ends); role changes are claims
 * changes (older access tokens are refused). Each change is one call of the administration use
 * cases (src/membership), which writes its audit event and announces it to every instance at once.
 * Only a `SuperAdmin` grants or removes `SuperAdmin` (a resource check on the role, 403). The
 * last user with role `Admin` who is not locked cannot be locked, deleted or lose the role (409):
 * the API would have nobody left to answer to.
 */
export async function adminRoutes(app: FastifyInstance, { users, auditTrail, authorization }: AdminRouteUseCases): Promise<void> {
  async function existingUser(id: string): Promise<User> {
    const user = await users.findById(Number(id));
    if (!user) throw GatehouseError.notFound('There is no such user.');
    return user;
  }

  app.get('/admin/users', () => users.list());

  app.delete<ById>('/admin/users/:id', { schema: { params: IdParams }, config: NO_CONTENT }, async (request, reply) => {
    const user = await existingUser(request.params.id);
    if (!(await users.delete(user.id, actorOf(request)))) throw GatehouseError.notFound('There is no such user.');
    return reply.code(204).send();
  });

  app.post<ById & { Body: Static<typeof RoleInput> }>(
    '/admin/users/:id/roles',
    { schema: { params: IdParams, body: RoleInput }, config: NO_CONTENT },
    async (request, reply) => {
      const { role } = request.body;
      checkRoleName(role);
      await request.authorize({ role }, roleGrant);
      const user = await existingUser(request.params.id);
      await users.addRole(user.id, role, actorOf(request));
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: Static<typeof RoleParams> }>(
    '/admin/users/:id/roles/:role',
    { schema: { params: RoleParams }, config: NO_CONTENT },
    async (request, reply) => {
      const { role } = request.params;
      await request.authorize({ role }, roleGrant);
      const user = await existingUser(request.params.id);
      await users.removeRole(user.id, role, actorOf(request));
      return reply.code(204).send();
    },
  );

  app.post<ById>('/admin/users/:id/lock', { schema: { params: IdParams }, config: NO_CONTENT }, async (request, reply) => {
    const user = await existingUser(request.params.id);
    if (!(await users.lock(user.id, actorOf(request)))) throw GatehouseError.notFound('There is no such user.');
    return reply.code(204).send();
  });

  app.post<ById>('/admin/users/:id/unlock', { schema: { params: IdParams }, config: NO_CONTENT }, async (request, reply) => {
    const user = await existingUser(request.params.id);
    await users.unlock(user.id, actorOf(request));
    return reply.code(204).send();
  });

  app.get<{ Querystring: Static<typeof AuditQuery> }>('/admin/audit', { schema: { querystring: AuditQuery } }, async (request) => {
    const limit = request.query.limit === undefined ? AUDIT_PAGE_DEFAULT : Number(request.query.limit);
    if (limit > AUDIT_PAGE_MAX) throw GatehouseError.validation({ limit: [`The limit is at most ${AUDIT_PAGE_MAX}.`] });
    const before = request.query.before === undefined ? undefined : Number(request.query.before);
    const page = await auditTrail.page({ limit, before });
    return { events: page.events.map((event) => ({ ...event, at: new Date(event.at).toISOString() })), next: page.next };
  });
}

/** The admin who asks, from where: the audit event names them. */
function actorOf(request: FastifyRequest): Actor {
  return { by: userIdOf(request), ip: request.ip };
}
