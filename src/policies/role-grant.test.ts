import { describe, expect, it } from 'vitest';
import { AuthorizationService } from '../security/authorization/index.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import { RoleGrantHandler, RoleGrantRequirement } from './role-grant.ts';

function principal(claims: Record<string, string | string[]>, authenticationType: string | null = 'Bearer'): ClaimsPrincipal {
  const list = Object.entries(claims).flatMap(([type, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => new Claim(type, item)),
  );
  return new ClaimsPrincipal([new ClaimsIdentity(list, authenticationType)]);
}

function user(claims: Record<string, string | string[]> = {}): ClaimsPrincipal {
  return principal({ sub: '1', name: 'alice', ...claims });
}

function setup() {
  const service = new AuthorizationService({ handlers: [new RoleGrantHandler()] });
  const allowsOn = async (requirement: RoleGrantRequirement, who: ClaimsPrincipal, resource: unknown) =>
    (await service.authorize(who, resource, requirement)).succeeded;
  return { allowsOn };
}

describe('RoleGrant (resource check on the role granted or removed)', () => {
  const { allowsOn } = setup();
  const roleGrant = new RoleGrantRequirement();

  it('lets anyone authenticated manage an ordinary role (the admin API’s group policy decides who gets there)', async () => {
    expect(await allowsOn(roleGrant, user({ role: 'Admin' }), { role: 'Editor' })).toBe(true);
  });

  it('keeps SuperAdmin to SuperAdmins', async () => {
    expect(await allowsOn(roleGrant, user({ role: 'Admin' }), { role: 'SuperAdmin' })).toBe(false);
    expect(await allowsOn(roleGrant, user({ role: ['Admin', 'SuperAdmin'] }), { role: 'SuperAdmin' })).toBe(true);
  });

  it('compares the role exactly: superadmin is another role, and so is a SuperAdmin in lower case', async () => {
    expect(await allowsOn(roleGrant, user({ role: 'Admin' }), { role: 'superadmin' })).toBe(true);
    expect(await allowsOn(roleGrant, user({ role: 'superadmin' }), { role: 'SuperAdmin' })).toBe(false);
  });

  it('refuses without a role to judge', async () => {
    expect(await allowsOn(roleGrant, user({ role: 'SuperAdmin' }), null)).toBe(false);
    expect(await allowsOn(roleGrant, user({ role: 'SuperAdmin' }), { name: 'SuperAdmin' })).toBe(false);
  });

  it('refuses an anonymous caller', async () => {
    expect(await allowsOn(roleGrant, principal({}, null), { role: 'Editor' })).toBe(false);
  });
});

