import { describe, expect, it } from 'vitest';
import { declaredOrganizationRoles, refusedOrganizationRole } from './organization-roles.ts';

describe('organization roles', () => {
  it('are declared as the built-in roles first, then the application’s, each once', () => {
    expect(declaredOrganizationRoles(['Billing', 'OrgMember', 'Billing'])).toEqual(['OrgOwner', 'OrgAdmin', 'OrgMember', 'Billing']);
  });

  it('refuse a global role and a malformed name, and take names a global role differs from by case', () => {
    expect(refusedOrganizationRole('Admin')).toBe('global');
    expect(refusedOrganizationRole('SuperAdmin')).toBe('global');
    expect(refusedOrganizationRole('superadmin')).toBeUndefined();
    for (const name of ['', '1st', 'team.lead', 'Support Desk', `R${'x'.repeat(64)}`]) expect(refusedOrganizationRole(name)).toBe('malformed');
    expect(refusedOrganizationRole(`R${'x'.repeat(63)}`)).toBeUndefined();
  });
});
