import type { UserManager } from '../identity/user-manager.ts';
import { GatehouseError } from '../security/errors.ts';
import type { User } from '../store/ports.ts';
import type { EndpointRequest } from './endpoint.ts';

/** The caller's user id (`sub`), for endpoints whose policy guarantees one. */
export function signedInUserId(request: Pick<EndpointRequest, 'user'>): number {
  const subject = request.user.subject;
  if (subject === null) throw new Error('This endpoint needs a policy that requires a user.');
  return Number(subject);
}

/** The signed-in user, read afresh (an admin may have changed roles since the cookie was set). */
export async function signedInUser(users: Pick<UserManager, 'findById'>, request: Pick<EndpointRequest, 'user'>): Promise<User> {
  const user = await users.findById(signedInUserId(request));
  if (user === null) throw GatehouseError.notFound((m) => m.problemAccountGone);
  return user;
}
