import { type Static, Type } from '@sinclair/typebox';
import { checkRoleName } from '../../identity/role-name.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { RoleGrantRequirement } from '../../policies/role-grant.ts';
import { GatehouseError } from '../../security/errors.ts';
import { defineEndpoint, type Endpoint, type EndpointResponse } from '../endpoint.ts';
import { IdParams } from '../id-params.ts';
import { adminActor } from './admin-actor.ts';
import { existingUser } from './existing-user.ts';

const RoleInput = Type.Object({ role: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
type RoleInput = Static<typeof RoleInput>;
const RoleParams = Type.Object({ id: IdParams.properties.id, role: Type.String({ minLength: 1, maxLength: 64 }) });

const roleGrant = new RoleGrantRequirement();

/** Admin changes answer 204 No Content. */
const NO_CONTENT: EndpointResponse = Object.freeze({ status: 204 });

/** What the user endpoints of the admin API call. */
export interface AdminUserUseCases {
  readonly users: UserAdministration;
}

/**
 * The users of the admin API: `GET /admin/users`, and for `/admin/users/:id` deleting, granting
 * and taking a role, locking and unlocking. Deleting and locking are security changes (every
 * session, refresh family and token of the user ends); role changes are claims changes (older
 * access tokens are refused). Each change is one call of the administration use cases, which
 * writes its audit event and announces it to every instance. Only a `SuperAdmin` grants or
 * removes `SuperAdmin` (a resource check on the role, 403), checked before the user is looked
 * up so that the refusal tells nothing of which ids exist. The last usable `Admin` cannot be
 * locked, deleted or lose the role (409, from the use cases).
 */
export function adminUserEndpoints({ users }: AdminUserUseCases): readonly Endpoint[] {
  const list = defineEndpoint({
    method: 'GET',
    path: '/admin/users',
    authorization: {},
    handle: async () => ({ status: 200, body: await users.list() }),
  });

  const remove = defineEndpoint({
    method: 'DELETE',
    path: '/admin/users/:id',
    authorization: {},
    params: IdParams,
    successStatus: 204,
    async handle(request) {
      const user = await existingUser(users, request.params.id!);
      if (!(await users.delete(user.id, adminActor(request)))) throw GatehouseError.notFound((m) => m.problemNoSuchUser);
      return NO_CONTENT;
    },
  });

  const addRole = defineEndpoint<RoleInput>({
    method: 'POST',
    path: '/admin/users/:id/roles',
    authorization: {},
    params: IdParams,
    body: RoleInput,
    successStatus: 204,
    async handle(request) {
      const { role } = request.body;
      checkRoleName(role);
      await request.authorize({ role }, roleGrant);
      const user = await existingUser(users, request.params.id!);
      await users.addRole(user.id, role, adminActor(request));
      return NO_CONTENT;
    },
  });

  const removeRole = defineEndpoint({
    method: 'DELETE',
    path: '/admin/users/:id/roles/:role',
    authorization: {},
    params: RoleParams,
    successStatus: 204,
    async handle(request) {
      const role = request.params.role!;
      await request.authorize({ role }, roleGrant);
      const user = await existingUser(users, request.params.id!);
      await users.removeRole(user.id, role, adminActor(request));
      return NO_CONTENT;
    },
  });

  const lock = defineEndpoint({
    method: 'POST',
    path: '/admin/users/:id/lock',
    authorization: {},
    params: IdParams,
    successStatus: 204,
    async handle(request) {
      const user = await existingUser(users, request.params.id!);
      if (!(await users.lock(user.id, adminActor(request)))) throw GatehouseError.notFound((m) => m.problemNoSuchUser);
      return NO_CONTENT;
    },
  });

  const unlock = defineEndpoint({
    method: 'POST',
    path: '/admin/users/:id/unlock',
    authorization: {},
    params: IdParams,
    successStatus: 204,
    async handle(request) {
      const user = await existingUser(users, request.params.id!);
      await users.unlock(user.id, adminActor(request));
      return NO_CONTENT;
    },
  });

  return [list, remove, addRole, removeRole, lock, unlock];
}
