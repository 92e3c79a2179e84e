import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { hasId } from './resource-guards.ts';

/** A resource that belongs to a user. */
export interface OwnedResource {
  readonly ownerId: number | string;
}

/** Met when the resource's owner is the caller (`ownerId` equals `sub`, compared as strings). */
export class OwnershipRequirement implements AuthorizationRequirement {
  readonly description = 'the owner of the resource';
}

/** Anything with an `ownerId` (a document). */
export function isOwnedResource(resource: unknown): resource is OwnedResource {
  return hasId(resource, 'ownerId');
}

export class OwnershipHandler extends ResourceRequirementHandler<OwnershipRequirement, OwnedResource> {
  constructor() {
    super(OwnershipRequirement, isOwnedResource);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: OwnershipRequirement, resource: OwnedResource): void {
    const subject = context.user.subject;
    if (context.user.isAuthenticated && subject !== null && String(resource.ownerId) === subject) context.succeed(requirement);
  }
}
