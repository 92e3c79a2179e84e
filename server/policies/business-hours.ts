import type { BusinessHours } from '../settings.ts';
import type { Clock } from 'gatehouse-auth';
import { type AuthorizationHandlerContext, type AuthorizationRequirement, RequirementHandler } from 'gatehouse-auth';

/** Met while the local time of day is within the window, both ends allowed, to the minute. */
export class BusinessHoursRequirement implements AuthorizationRequirement {
  readonly description = 'business hours';

  constructor(readonly window: BusinessHours) {}
}

/** Judges `BusinessHoursRequirement` against an injected clock in one time zone. */
export class BusinessHoursHandler extends RequirementHandler<BusinessHoursRequirement> {
  private readonly format: Intl.DateTimeFormat;

  constructor(
    private readonly clock: Clock,
    timeZone: string,
  ) {
    super(BusinessHoursRequirement);
    this.format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: BusinessHoursRequirement): void {
    if (isWithin(this.minuteOfDay(), requirement.window)) context.succeed(requirement);
  }

  private minuteOfDay(): number {
    const parts = this.format.formatToParts(new Date(this.clock.now()));
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return part('hour') * 60 + part('minute');
  }
}

/** A window that ends before it starts spans midnight (22:00-06:00). */
function isWithin(minute: number, { startMinute, endMinute }: BusinessHours): boolean {
  return startMinute <= endMinute
    ? minute >= startMinute && minute <= endMinute
    : minute >= startMinute || minute <= endMinute;
}
