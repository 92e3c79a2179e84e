import {
  type AuthorizationHandlerContext,
  type AuthorizationRequirement,
  ResourceRequirementHandler,
  type SelfHandlingRequirement,
} from 'gatehouse-auth';
import { hasId } from './resource-guards.ts';

/**
 * Met by a user of this service (an integer `sub`): who may write a post. An API-key client is
 * authenticated but no user, and may not write as one.
 */
export class PostWriterRequirement implements SelfHandlingRequirement {
  readonly description = 'a user who may write posts';

  handle(context: AuthorizationHandlerContext): void {
    const { user } = context;
    if (user.isAuthenticated && user.subject !== null && Number.isInteger(Number(user.subject))) context.succeed(this);
  }
}

/** A resource written by a user. */
export interface AuthoredResource {
  readonly authorId: number;
}

/** Met by the resource's author (`sub` equals `authorId`) and by role `Admin` (docs/reference/graphql.md). */
export class PostAuthorRequirement implements AuthorizationRequirement {
  readonly description = 'the author or an admin';
}

/** Anything with an `authorId` (a post). */
export function isAuthoredResource(resource: unknown): resource is AuthoredResource {
  return hasId(resource, 'authorId');
}

export class PostAuthorHandler extends ResourceRequirementHandler<PostAuthorRequirement, AuthoredResource> {
  constructor() {
    super(PostAuthorRequirement, isAuthoredResource);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: PostAuthorRequirement, resource: AuthoredResource): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    if (user.isInRole('Admin') || (user.subject !== null && user.subject === String(resource.authorId))) context.succeed(requirement);
  }
}

/** A user as a resource: its id. */
export interface UserResource {
  readonly id: number;
  readonly email: string;
}

/** Met by that user and by role `Admin`: the field policy `SelfOrAdmin` of `User.email`. */
export class SelfOrAdminRequirement implements AuthorizationRequirement {
  readonly description = 'the user or an admin';
}

/** A user: an `id` and an `email` (what `User.email` is resolved from). */
export function isUserResource(resource: unknown): resource is UserResource {
  return hasId(resource, 'id') && typeof (resource as { email?: unknown }).email === 'string';
}

export class SelfOrAdminHandler extends ResourceRequirementHandler<SelfOrAdminRequirement, UserResource> {
  constructor() {
    super(SelfOrAdminRequirement, isUserResource);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: SelfOrAdminRequirement, resource: UserResource): void {
    const { user } = context;
    if (!user.isAuthenticated) return;
    if (user.isInRole('Admin') || (user.subject !== null && user.subject === String(resource.id))) context.succeed(requirement);
  }
}
