/**
 * `@Authorize(…)`, `@AllowAnonymous()` and `@CurrentUser()`: ASP.NET's `[Authorize]`,
 * `[AllowAnonymous]` and `User`, for controllers and their handlers. The metadata is kept beside
 * the class or the handler function; the guard reads it (gatehouse-guard.ts).
 */
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthorizationMetadata, AuthorizeData } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';

const metadataOf = new WeakMap<object, AuthorizationMetadata<PolicyName>>();

/** The metadata of a controller class or a handler function (undefined when it says nothing). */
export function authorizationOf(target: object): AuthorizationMetadata<PolicyName> | undefined {
  return metadataOf.get(target);
}

/** A class or method decorator, legacy style as NestJS's own: the class itself, or the method's function. */
type ClassOrMethodDecorator = (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => void;

function adding(change: (earlier: AuthorizationMetadata<PolicyName>) => AuthorizationMetadata<PolicyName>): ClassOrMethodDecorator {
  return (target, _key, descriptor) => {
    const holder = (descriptor?.value as object | undefined) ?? target;
    metadataOf.set(holder, change(metadataOf.get(holder) ?? {}));
  };
}

/**
 * Protects a controller (every handler, beside their own rules) or a handler: a policy, roles,
 * schemes; without an argument, the default policy. Several on one target must all hold.
 */
export function Authorize(data: AuthorizeData<PolicyName> = {}): ClassOrMethodDecorator {
  return adding((earlier) => ({ ...earlier, authorize: [...(earlier.authorize ?? []), data] }));
}

/** Opens a handler to anyone, whatever its controller says; credentials are not read. */
export function AllowAnonymous(): ClassOrMethodDecorator {
  return adding((earlier) => ({ ...earlier, allowAnonymous: true }));
}

const ANONYMOUS = ClaimsPrincipal.anonymous();

/**
 * The caller (`ClaimsPrincipal`) as a handler's parameter; anonymous on anonymous handlers. In a
 * GraphQL resolver, the operation's caller (its context's `user`).
 */
export const CurrentUser = createParamDecorator((_data: unknown, context: ExecutionContext): ClaimsPrincipal => {
  const holder = context.getType<string>() === 'graphql' ? context.getArgByIndex<{ user?: ClaimsPrincipal } | undefined>(2) : context.switchToHttp().getRequest<{ user?: ClaimsPrincipal }>();
  return holder?.user ?? ANONYMOUS;
});
