import type { AuthorizationHandlerContext, SelfHandlingRequirement } from 'gatehouse-auth';

/** Met when claim `age` exists and its integer value is at least `minimumAge`. */
export class MinimumAgeRequirement implements SelfHandlingRequirement {
  readonly description: string;

  constructor(readonly minimumAge: number) {
    this.description = `age of at least ${minimumAge}`;
  }

  handle(context: AuthorizationHandlerContext): void {
    const age = context.user.findFirst('age')?.value;
    if (age !== undefined && /^\d{1,3}$/.test(age) && Number(age) >= this.minimumAge) context.succeed(this);
  }
}
