import type { AuthorizationHandlerContext } from '../authorization-handler-context.ts';
import type { SelfHandlingRequirement } from '../authorization-requirement.ts';

export type AuthorizationAssertion = (context: AuthorizationHandlerContext) => boolean | Promise<boolean>;

/** Met when the assertion returns true; for rules too small to deserve a requirement type. */
export class AssertionRequirement implements SelfHandlingRequirement {
  constructor(
    readonly assertion: AuthorizationAssertion,
    readonly description = 'an assertion',
  ) {}

  handle(context: AuthorizationHandlerContext): void | Promise<void> {
    const outcome = this.assertion(context);
    if (typeof outcome === 'boolean') {
      if (outcome) context.succeed(this);
      return;
    }
    return outcome.then((met) => {
      if (met) context.succeed(this);
    });
  }
}
