import type { Actor } from '../../membership/actor.ts';
import type { EndpointRequest } from '../endpoint.ts';

/** The admin who asks, from where: the audit event names them. The admin group admits only users, so there is a subject. */
export function adminActor(request: EndpointRequest): Actor {
  return { by: Number(request.user.subject), ip: request.ip };
}
