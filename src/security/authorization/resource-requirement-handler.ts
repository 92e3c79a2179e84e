import type { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import {
  type AuthorizationHandler,
  type AuthorizationRequirement,
  forEachRequirement,
  type RequirementClass,
} from './authorization-requirement.ts';

/** Tells whether a resource is of the type a handler judges. */
export type ResourceGuard<TResource> = (resource: unknown) => resource is TResource;

/** The guard of a class: resources made by it (or a subclass) and nothing else. */
export function instanceOf<TResource>(type: abstract new (...args: never[]) => TResource): ResourceGuard<TResource> {
  return (resource): resource is TResource => resource instanceof type;
}

/**
 * Base for a handler of one requirement type about one resource type (ASP.NET's
 * `AuthorizationHandler<TRequirement, TResource>`). It is not called when there is no resource
 * (`null` or `undefined`) or when the guard refuses the resource: its requirement then stays
 * pending unless another handler meets it, so a handler that succeeds without looking at the
 * resource (an administrator branch, say) cannot grant a check it was never meant for.
 *
 * Store records are plain objects, so their guards test the members the handler reads; a class
 * resource can use `instanceOf(Class)`.
 */
export abstract class ResourceRequirementHandler<R extends AuthorizationRequirement, TResource> implements AuthorizationHandler {
  protected constructor(
    readonly requirementType: RequirementClass<R>,
    private readonly isResource: ResourceGuard<TResource>,
  ) {}

  handle(context: AuthorizationHandlerContext): void | Promise<void> {
    const { resource } = context;
    if (resource === null || resource === undefined || !this.isResource(resource)) return;
    return forEachRequirement(context, this.requirementType, (requirement) => this.handleRequirement(context, requirement, resource));
  }

  protected abstract handleRequirement(context: AuthorizationHandlerContext, requirement: R, resource: TResource): void | Promise<void>;
}
