import type { UserAdministration } from '../../membership/user-administration.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';

/** The user a path's `:id` names; 404 when there is none. */
export async function existingUser(users: Pick<UserAdministration, 'findById'>, id: string): Promise<User> {
  const user = await users.findById(Number(id));
  if (!user) throw GatehouseError.notFound((m) => m.problemNoSuchUser);
  return user;
}
