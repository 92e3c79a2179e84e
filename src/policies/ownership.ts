import { type AuthorizationHandlerContext, type AuthorizationRequirement, RequirementHandler } from '../security/authorization/index.ts';

/** A resource that belongs to a user. */
export interface OwnedResource {
  readonly ownerId: number | string;
}

/** Met when the resource's owner is the caller (`ownerId` equals `sub`, compared as strings). */
export class OwnershipRequirement implements AuthorizationRequirement {
  readonly description = 'the owner of the resource';
}

export class OwnershipHandler extends RequirementHandler<OwnershipRequirement, OwnedResource | null> {
  constructor() {
    super(OwnershipRequirement);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: OwnershipRequirement, resource: OwnedResource | null): void {
    const subject = context.user.subject;
    if (context.user.isAuthenticated && resource && subject !== null && String(resource.ownerId) === subject) context.succeed(requirement);
  }
}
