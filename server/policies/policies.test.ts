import { describe, expect, it } from 'vitest';
import type { BusinessHours } from '../settings.ts';
import { ManualClock } from 'gatehouse-auth';
import type { AuthorizationRequirement } from 'gatehouse-auth';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from 'gatehouse-auth';
import { OrgAdminRequirement } from './org-admin.ts';
import { OwnershipRequirement } from './ownership.ts';
import { PostAuthorRequirement, SelfOrAdminRequirement } from './post-author.ts';
import { createAuthorizationService, createPolicyProvider, type PolicyName } from './policies.ts';

const NINE_TO_FIVE: BusinessHours = { startMinute: 9 * 60, endMinute: 17 * 60 };
const OVERNIGHT: BusinessHours = { startMinute: 22 * 60, endMinute: 6 * 60 };

/** 2026-01-15, a Thursday in New York winter time (EST, UTC-5), at 15:00 local. */
const WINTER_AFTERNOON = Date.UTC(2026, 0, 15, 20, 0);

function principal(claims: Record<string, string | string[]>, authenticationType: string | null = 'Bearer'): ClaimsPrincipal {
  const list = Object.entries(claims).flatMap(([type, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => new Claim(type, item)),
  );
  return new ClaimsPrincipal([new ClaimsIdentity(list, authenticationType)]);
}

function user(claims: Record<string, string | string[]> = {}): ClaimsPrincipal {
  return principal({ sub: '1', name: 'alice', ...claims });
}

const apiClient = principal({ client: 'billing' }, 'ApiKey');

function setup({ window = NINE_TO_FIVE, timeZone = 'America/New_York', now = WINTER_AFTERNOON } = {}) {
  const clock = new ManualClock(now);
  const policies = createPolicyProvider({ businessHours: window });
  const service = createAuthorizationService(clock, timeZone);
  const allows = async (name: PolicyName, who: ClaimsPrincipal) => (await service.authorize(who, null, policies.get(name))).succeeded;
  const allowsOn = async (requirement: AuthorizationRequirement, who: ClaimsPrincipal, resource: unknown) =>
    (await service.authorize(who, resource, requirement)).succeeded;
  return { clock, policies, service, allows, allowsOn };
}

describe('MinimumAge', () => {
  const { allows } = setup();

  it('refuses a user without an `age` claim', async () => {
    expect(await allows('MinimumAge', user())).toBe(false);
  });

  it('refuses a user aged 17', async () => {
    expect(await allows('MinimumAge', user({ age: '17' }))).toBe(false);
  });

  it('allows a user aged 18', async () => {
    expect(await allows('MinimumAge', user({ age: '18' }))).toBe(true);
  });

  it('allows a user older than 18', async () => {
    expect(await allows('MinimumAge', user({ age: '42' }))).toBe(true);
  });

  it.each(['abc', '18.0', '-18', ' 18', '18 ', '', '1e2', '0x20', '+18', '18abc', '１８'])(
    'refuses an `age` claim that is not a plain integer: %j',
    async (age) => {
      expect(await allows('MinimumAge', user({ age }))).toBe(false);
    },
  );
});

describe('PremiumOnly', () => {
  const { allows } = setup();

  it('allows a user whose subscription is premium', async () => {
    expect(await allows('PremiumOnly', user({ subscription: 'premium' }))).toBe(true);
  });

  it('refuses a user whose subscription is basic', async () => {
    expect(await allows('PremiumOnly', user({ subscription: 'basic' }))).toBe(false);
  });

  it('refuses a user without a subscription claim', async () => {
    expect(await allows('PremiumOnly', user())).toBe(false);
  });

  it('compares the subscription value exactly', async () => {
    expect(await allows('PremiumOnly', user({ subscription: 'Premium' }))).toBe(false);
  });
});

describe('BusinessHours (09:00-17:00, America/New_York)', () => {
  const cases: [string, number, boolean][] = [
    ['08:59 EST', Date.UTC(2026, 0, 15, 13, 59), false],
    ['09:00 EST (the start is allowed)', Date.UTC(2026, 0, 15, 14, 0), true],
    ['12:30 EST', Date.UTC(2026, 0, 15, 17, 30), true],
    ['17:00 EST (the end is allowed)', Date.UTC(2026, 0, 15, 22, 0), true],
    ['17:00:59 EST (still the minute 17:00)', Date.UTC(2026, 0, 15, 22, 0, 59, 999), true],
    ['17:01 EST', Date.UTC(2026, 0, 15, 22, 1), false],
    ['03:00 EST', Date.UTC(2026, 0, 15, 8, 0), false],
  ];

  it.each(cases)('at %s local time the decision is %s', async (_, now, expected) => {
    const { allows } = setup({ now });
    expect(await allows('BusinessHours', user())).toBe(expected);
  });

  it('follows the clock as it moves', async () => {
    const { allows, clock } = setup({ now: Date.UTC(2026, 0, 15, 13, 59) });
    expect(await allows('BusinessHours', user())).toBe(false);
    clock.advance(60_000);
    expect(await allows('BusinessHours', user())).toBe(true);
  });

  // Daylight saving time began in New York on Sunday 2026-03-08: local time is then UTC-4.
  it('uses daylight saving time: 13:00 UTC is 09:00 EDT on Monday 2026-03-09, inside the window', async () => {
    const { allows } = setup({ now: Date.UTC(2026, 2, 9, 13, 0) });
    expect(await allows('BusinessHours', user())).toBe(true);
  });

  it('uses standard time before the change: 13:00 UTC is 08:00 EST on Friday 2026-03-06, outside the window', async () => {
    const { allows } = setup({ now: Date.UTC(2026, 2, 6, 13, 0) });
    expect(await allows('BusinessHours', user())).toBe(false);
  });

  it('uses daylight saving time at the end of the day: 21:01 UTC is 17:01 EDT, outside the window', async () => {
    const { allows } = setup({ now: Date.UTC(2026, 2, 9, 21, 1) });
    expect(await allows('BusinessHours', user())).toBe(false);
  });

  it('uses daylight saving time at the end of the day: 21:00 UTC is 17:00 EDT, inside the window', async () => {
    const { allows } = setup({ now: Date.UTC(2026, 2, 9, 21, 0) });
    expect(await allows('BusinessHours', user())).toBe(true);
  });

  it('judges the same instant differently in another time zone (08:59 in New York is 13:59 in UTC)', async () => {
    const now = Date.UTC(2026, 0, 15, 13, 59);
    expect(await setup({ now, timeZone: 'America/New_York' }).allows('BusinessHours', user())).toBe(false);
    expect(await setup({ now, timeZone: 'UTC' }).allows('BusinessHours', user())).toBe(true);
  });

  it('judges the same instant differently in another time zone (15:00 in New York is 20:00 in UTC)', async () => {
    expect(await setup({ timeZone: 'America/New_York' }).allows('BusinessHours', user())).toBe(true);
    expect(await setup({ timeZone: 'UTC' }).allows('BusinessHours', user())).toBe(false);
  });

  it('uses the window given to the policy provider', async () => {
    const now = Date.UTC(2026, 0, 15, 13, 59);
    expect(await setup({ now, window: { startMinute: 8 * 60 + 59, endMinute: 9 * 60 } }).allows('BusinessHours', user())).toBe(true);
  });
});

describe('BusinessHours (overnight window 22:00-06:00, UTC)', () => {
  const cases: [string, number, boolean][] = [
    ['21:59', Date.UTC(2026, 0, 15, 21, 59), false],
    ['22:00', Date.UTC(2026, 0, 15, 22, 0), true],
    ['23:30', Date.UTC(2026, 0, 15, 23, 30), true],
    ['00:00', Date.UTC(2026, 0, 16, 0, 0), true],
    ['03:00', Date.UTC(2026, 0, 16, 3, 0), true],
    ['06:00', Date.UTC(2026, 0, 16, 6, 0), true],
    ['06:01', Date.UTC(2026, 0, 16, 6, 1), false],
    ['12:00', Date.UTC(2026, 0, 16, 12, 0), false],
  ];

  it.each(cases)('at %s the decision is %s', async (_, now, expected) => {
    const { allows } = setup({ window: OVERNIGHT, timeZone: 'UTC', now });
    expect(await allows('BusinessHours', user())).toBe(expected);
  });

  it('reads midnight as minute 0 of the day, not as 24:00', async () => {
    const { allows } = setup({ window: { startMinute: 0, endMinute: 30 }, timeZone: 'UTC', now: Date.UTC(2026, 0, 16, 0, 15) });
    expect(await allows('BusinessHours', user())).toBe(true);
  });
});

describe('Ownership (resource check)', () => {
  const { allowsOn } = setup();
  const ownership = new OwnershipRequirement();

  it('allows the owner when the numeric ownerId equals the `sub`', async () => {
    expect(await allowsOn(ownership, user(), { ownerId: 1 })).toBe(true);
  });

  it('allows the owner when the string ownerId equals the `sub`', async () => {
    expect(await allowsOn(ownership, principal({ sub: '42' }), { ownerId: '42' })).toBe(true);
    expect(await allowsOn(ownership, principal({ sub: '42' }), { ownerId: 42 })).toBe(true);
  });

  it('refuses another user', async () => {
    expect(await allowsOn(ownership, principal({ sub: '2' }), { ownerId: 1 })).toBe(false);
    expect(await allowsOn(ownership, principal({ sub: '1' }), { ownerId: 11 })).toBe(false);
  });

  it('compares ids as decimal strings, so a differently written number is another id', async () => {
    expect(await allowsOn(ownership, principal({ sub: '042' }), { ownerId: 42 })).toBe(false);
  });

  it('refuses an API-key principal, which has no `sub`', async () => {
    expect(await allowsOn(ownership, apiClient, { ownerId: 1 })).toBe(false);
  });

  it('refuses a null resource', async () => {
    expect(await allowsOn(ownership, user(), null)).toBe(false);
  });

  it('refuses a resource without an owner id, even one whose other id is the caller’s (a user record)', async () => {
    expect(await allowsOn(ownership, user(), { id: 1, email: 'alice@example.com' })).toBe(false);
    expect(await allowsOn(ownership, user(), { ownerId: null })).toBe(false);
    expect(await allowsOn(ownership, user(), { ownerId: '1.0' })).toBe(false);
  });
});

describe('OrgAdmin (resource check)', () => {
  const { allowsOn } = setup();
  const orgAdmin = new OrgAdminRequirement();

  it('allows a SuperAdmin for any organization, without an org_id claim', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), { id: 7, name: 'Acme' })).toBe(true);
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), { id: 8, name: 'Acme' })).toBe(true);
  });

  it('allows an OrgAdmin whose org_id is the organization’s id, numeric or string', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin', org_id: '7' }), { id: 7, name: 'Acme' })).toBe(true);
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin', org_id: '7' }), { id: '7', name: 'Acme' })).toBe(true);
  });

  it('allows an OrgAdmin of several organizations for any of them', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin', org_id: ['3', '7'] }), { id: 7, name: 'Acme' })).toBe(true);
  });

  it('refuses an OrgAdmin of another organization', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin', org_id: '8' }), { id: 7, name: 'Acme' })).toBe(false);
  });

  it('refuses an OrgAdmin without an org_id claim', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin' }), { id: 7, name: 'Acme' })).toBe(false);
  });

  it('refuses a matching org_id without the OrgAdmin role', async () => {
    expect(await allowsOn(orgAdmin, user({ org_id: '7' }), { id: 7, name: 'Acme' })).toBe(false);
  });

  it('refuses a plain user', async () => {
    expect(await allowsOn(orgAdmin, user(), { id: 7, name: 'Acme' })).toBe(false);
  });

  it('compares the roles case-sensitively', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'superadmin' }), { id: 7, name: 'Acme' })).toBe(false);
    expect(await allowsOn(orgAdmin, user({ role: 'orgadmin', org_id: '7' }), { id: 7, name: 'Acme' })).toBe(false);
  });

  it('refuses even a SuperAdmin when there is no organization: the handler judges organizations only', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), null)).toBe(false);
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), undefined)).toBe(false);
  });

  it('refuses even a SuperAdmin for a resource that is not an organization (a document, a post)', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), { id: 7, ownerId: 1, title: 't', body: 'b' })).toBe(false);
    expect(await allowsOn(orgAdmin, user({ role: 'SuperAdmin' }), { id: 7, authorId: 1, title: 't' })).toBe(false);
  });

  it('refuses an OrgAdmin when there is no organization', async () => {
    expect(await allowsOn(orgAdmin, user({ role: 'OrgAdmin', org_id: '7' }), null)).toBe(false);
  });
});

describe('PostAuthor (resource check)', () => {
  const { allowsOn } = setup();
  const postAuthor = new PostAuthorRequirement();
  const post = { id: 9, authorId: 1, title: 't', body: 'b', createdAt: 0 };

  it('allows the author and an Admin', async () => {
    expect(await allowsOn(postAuthor, user(), post)).toBe(true);
    expect(await allowsOn(postAuthor, principal({ sub: '2', role: 'Admin' }), post)).toBe(true);
  });

  it('refuses another user', async () => {
    expect(await allowsOn(postAuthor, principal({ sub: '2' }), post)).toBe(false);
  });

  it('refuses even an Admin without a post, or for a resource that is not one', async () => {
    const admin = principal({ sub: '2', role: 'Admin' });
    expect(await allowsOn(postAuthor, admin, null)).toBe(false);
    expect(await allowsOn(postAuthor, admin, { id: 9, ownerId: 2, title: 't', body: 'b' })).toBe(false);
  });
});

describe('SelfOrAdmin (resource check)', () => {
  const { allowsOn } = setup();
  const selfOrAdmin = new SelfOrAdminRequirement();
  const alice = { id: 1, email: 'alice@example.com' };

  it('allows the user and an Admin', async () => {
    expect(await allowsOn(selfOrAdmin, user(), alice)).toBe(true);
    expect(await allowsOn(selfOrAdmin, principal({ sub: '2', role: 'Admin' }), alice)).toBe(true);
  });

  it('refuses another user', async () => {
    expect(await allowsOn(selfOrAdmin, principal({ sub: '2' }), alice)).toBe(false);
  });

  it('refuses even an Admin without a user, or for a resource that is not one (a post)', async () => {
    const admin = principal({ sub: '2', role: 'Admin' });
    expect(await allowsOn(selfOrAdmin, admin, null)).toBe(false);
    expect(await allowsOn(selfOrAdmin, admin, { id: 1, authorId: 1, title: 't', body: 'b', createdAt: 0 })).toBe(false);
  });
});

describe('AdminOnly', () => {
  const { allows } = setup();

  it('allows a user in role Admin', async () => {
    expect(await allows('AdminOnly', user({ role: ['User', 'Admin'] }))).toBe(true);
  });

  it('refuses role `admin` in lower case', async () => {
    expect(await allows('AdminOnly', user({ role: 'admin' }))).toBe(false);
  });

  it('refuses a user without the role', async () => {
    expect(await allows('AdminOnly', user({ role: 'User' }))).toBe(false);
  });
});

describe('User', () => {
  const { allows } = setup();

  it('allows a principal with a `sub`', async () => {
    expect(await allows('User', user())).toBe(true);
  });

  it('refuses an API-key principal, which acts for no user', async () => {
    expect(await allows('User', apiClient)).toBe(false);
  });
});

describe('ApiClient', () => {
  const { allows, policies } = setup();

  it('judges only the ApiKey scheme', () => {
    expect(policies.get('ApiClient').authenticationSchemes).toEqual(['ApiKey']);
  });

  it('allows an API-key principal with a `client` claim', async () => {
    expect(await allows('ApiClient', apiClient)).toBe(true);
  });

  it('refuses a user without a `client` claim', async () => {
    expect(await allows('ApiClient', user())).toBe(false);
  });
});

describe('every named policy', () => {
  const names: PolicyName[] = ['AdminOnly', 'MinimumAge', 'PremiumOnly', 'BusinessHours', 'User', 'ApiClient'];
  /** Claims that meet every policy, so that only authentication is left to decide. */
  const everything = { sub: '1', name: 'alice', role: 'Admin', age: '30', subscription: 'premium', client: 'billing' };

  it.each(names)('%s allows an authenticated principal that has every claim it asks for', async (name) => {
    const { allows } = setup();
    expect(await allows(name, principal(everything))).toBe(true);
  });

  it.each(names)('%s refuses the anonymous principal', async (name) => {
    const { allows } = setup();
    expect(await allows(name, ClaimsPrincipal.anonymous())).toBe(false);
  });

  it.each(names)('%s refuses an unauthenticated principal, whatever claims it carries', async (name) => {
    const { allows } = setup();
    expect(await allows(name, principal(everything, null))).toBe(false);
  });

  it('is registered under the names the service uses', () => {
    const { policies } = setup();
    for (const name of names) expect(policies.has(name)).toBe(true);
  });

  it('the resource checks refuse the anonymous principal', async () => {
    const { allowsOn } = setup();
    expect(await allowsOn(new OwnershipRequirement(), ClaimsPrincipal.anonymous(), { ownerId: 1 })).toBe(false);
    expect(await allowsOn(new OrgAdminRequirement(), ClaimsPrincipal.anonymous(), { id: 1 })).toBe(false);
  });
});
