import { type AuthorizationHandlerContext, type AuthorizationRequirement, RequirementHandler } from '../security/authorization/index.ts';

/** A resource written by a user. */
export interface AuthoredResource {
  readonly authorId: number;
}

/** Met by the resource's author (`sub` equals `authorId`) and by role `Admin` (SPEC section 6). */
export class PostAuthorRequirement implements AuthorizationRequirement {
  readonly description = 'the author or an admin';
}

export class PostAuthorHandler extends RequirementHandler<PostAuthorRequirement, AuthoredResource | null> {
  constructor() {
    super(PostAuthorRequirement);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: PostAuthorRequirement, resource: AuthoredResource | null): void {
    const { user } = context;
    if (!user.isAuthenticated || resource === null) return;
    if (user.isInRole('Admin') || (user.subject !== null && user.subject === String(resource.authorId))) context.succeed(requirement);
  }
}

/** A user as a resource: its id. */
export interface UserResource {
  readonly id: number;
}

/** Met by that user and by role `Admin`: the field policy `SelfOrAdmin` of `User.email`. */
export class SelfOrAdminRequirement implements AuthorizationRequirement {
  readonly description = 'the user or an admin';
}

export class SelfOrAdminHandler extends RequirementHandler<SelfOrAdminRequirement, UserResource | null> {
  constructor() {
    super(SelfOrAdminRequirement);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: SelfOrAdminRequirement, resource: UserResource | null): void {
    const { user } = context;
    if (!user.isAuthenticated || resource === null) return;
    if (user.isInRole('Admin') || (user.subject !== null && user.subject === String(resource.id))) context.succeed(requirement);
  }
}
