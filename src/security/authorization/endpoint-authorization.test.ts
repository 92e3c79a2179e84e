import { describe, expect, it } from 'vitest';
import { Claim } from '../claims/claim.ts';
import { ClaimsIdentity } from '../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationPolicy } from './authorization-policy.ts';
import { AuthorizationPolicyBuilder } from './authorization-policy-builder.ts';
import { AuthorizationService } from './authorization-service.ts';
import { isAnonymousEndpoint, resolveEndpointPolicy } from './endpoint-authorization.ts';
import { PolicyProvider } from './policy-provider.ts';
import { DenyAnonymousRequirement } from './requirements/deny-anonymous-requirement.ts';
import { RolesRequirement } from './requirements/roles-requirement.ts';

type Name = 'Sales' | 'Auditors';

const sales = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('department', 'sales').build();
const auditors = new AuthorizationPolicyBuilder('ApiKey').requireClaim('auditor').build();
const defaultPolicy = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('default-marker').build();
const fallbackPolicy = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('fallback-marker').build();

const provider = new PolicyProvider<Name>({ policies: { Sales: sales, Auditors: auditors }, defaultPolicy, fallbackPolicy });
const service = new AuthorizationService();

function principal(claims: Record<string, string | string[]>, authenticationType: string | null = 'Bearer'): ClaimsPrincipal {
  const list = Object.entries(claims).flatMap(([type, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => new Claim(type, item)),
  );
  return new ClaimsPrincipal([new ClaimsIdentity(list, authenticationType)]);
}

async function allows(policy: AuthorizationPolicy | null, user: ClaimsPrincipal): Promise<boolean> {
  if (policy === null) throw new Error('expected a policy, got an anonymous endpoint');
  return (await service.authorize(user, null, policy)).succeeded;
}

describe('resolveEndpointPolicy', () => {
  it('gives the fallback policy object when neither the endpoint nor its group says anything', () => {
    expect(resolveEndpointPolicy(provider)).toBe(fallbackPolicy);
    expect(resolveEndpointPolicy(provider, {}, {})).toBe(fallbackPolicy);
  });

  it('gives the fallback policy when both say only empty authorize lists', () => {
    expect(resolveEndpointPolicy(provider, { authorize: [] }, { authorize: [] })).toBe(fallbackPolicy);
  });

  it('gives the provider’s built-in fallback, which requires an authenticated user, when none is configured', async () => {
    const plain = new PolicyProvider<Name>({ policies: { Sales: sales, Auditors: auditors } });
    const policy = resolveEndpointPolicy(plain);
    expect(policy).toBe(plain.fallbackPolicy);
    expect(await allows(policy, principal({ sub: '1' }))).toBe(true);
    expect(await allows(policy, ClaimsPrincipal.anonymous())).toBe(false);
  });

  it('gives null (anonymous) for an endpoint that says allowAnonymous', () => {
    expect(resolveEndpointPolicy(provider, { allowAnonymous: true })).toBeNull();
  });

  it('lets allowAnonymous on the endpoint beat authorize on its group', () => {
    expect(resolveEndpointPolicy(provider, { allowAnonymous: true }, { authorize: [{ policy: 'Sales' }] })).toBeNull();
  });

  it('lets allowAnonymous on the endpoint beat authorize on the endpoint itself (as in ASP.NET)', () => {
    expect(resolveEndpointPolicy(provider, { allowAnonymous: true, authorize: [{ policy: 'Sales' }] })).toBeNull();
  });

  it('makes an endpoint under an allowAnonymous group anonymous when it says nothing', () => {
    expect(resolveEndpointPolicy(provider, {}, { allowAnonymous: true })).toBeNull();
  });

  it('lets authorize on the endpoint beat allowAnonymous on its group', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ policy: 'Sales' }] }, { allowAnonymous: true });
    expect(policy).not.toBeNull();
    expect(policy!.requirements).toEqual(sales.requirements);
    expect(await allows(policy, ClaimsPrincipal.anonymous())).toBe(false);
  });

  it('combines authorize on the endpoint with authorize on its group: both must pass, the schemes of both are tried', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ policy: 'Sales' }] }, { authorize: [{ policy: 'Auditors' }] });
    expect(policy!.requirements).toEqual([...sales.requirements, ...auditors.requirements]);
    expect(policy!.authenticationSchemes).toEqual(['ApiKey']);
    expect(await allows(policy, principal({ department: 'sales' }))).toBe(false);
    expect(await allows(policy, principal({ auditor: 'yes' }, 'ApiKey'))).toBe(false);
    expect(await allows(policy, principal({ department: 'sales', auditor: 'yes' }, 'ApiKey'))).toBe(true);
  });

  it('combines the authorize of every group around the endpoint, nearest first', () => {
    const policy = resolveEndpointPolicy(provider, {}, [{ authorize: [{ roles: ['Manager'], schemes: ['Cookies'] }] }, { authorize: [{ policy: 'Auditors' }] }]);
    expect(policy!.requirements.some((requirement) => requirement instanceof RolesRequirement)).toBe(true);
    expect(policy!.requirements).toEqual(expect.arrayContaining([...auditors.requirements]));
    expect(policy!.authenticationSchemes).toEqual(['Cookies', 'ApiKey']);
  });

  it('lets allowAnonymous on the endpoint beat authorize on every group', () => {
    expect(resolveEndpointPolicy(provider, { allowAnonymous: true }, [{ authorize: [{ policy: 'Sales' }] }, { authorize: [{ policy: 'Auditors' }] }])).toBeNull();
  });

  it('lets an allowAnonymous group open the routes that ask for nothing, even inside a protected group', () => {
    expect(resolveEndpointPolicy(provider, {}, [{ allowAnonymous: true }, { authorize: [{ policy: 'Sales' }] }])).toBeNull();
    expect(isAnonymousEndpoint({}, [{ allowAnonymous: true }, { authorize: [{ policy: 'Sales' }] }])).toBe(true);
  });

  it('never lets an allowAnonymous group widen a route that asks for a policy: the groups around it still apply', () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ roles: ['Manager'] }] }, [{ allowAnonymous: true }, { authorize: [{ policy: 'Sales' }] }]);
    expect(policy!.requirements).toEqual(expect.arrayContaining([...sales.requirements]));
    expect(isAnonymousEndpoint({ authorize: [{ roles: ['Manager'] }] }, [{ allowAnonymous: true }])).toBe(false);
  });

  it('applies the group’s authorize when the endpoint says nothing', async () => {
    const policy = resolveEndpointPolicy(provider, {}, { authorize: [{ policy: 'Auditors' }] });
    expect(policy!.requirements).toEqual(auditors.requirements);
    expect(policy!.authenticationSchemes).toEqual(['ApiKey']);
    expect(await allows(policy, principal({ auditor: 'yes' }, 'ApiKey'))).toBe(true);
    expect(await allows(policy, principal({ department: 'sales' }))).toBe(false);
  });

  it('applies the group’s authorize when the endpoint says allowAnonymous: false', () => {
    const policy = resolveEndpointPolicy(provider, { allowAnonymous: false }, { authorize: [{ policy: 'Sales' }] });
    expect(policy!.requirements).toEqual(sales.requirements);
  });

  it('uses the default policy’s requirements for a bare authorize (no policy, no roles)', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{}] });
    expect(policy).not.toBe(fallbackPolicy);
    expect(policy!.requirements).toEqual(defaultPolicy.requirements);
    expect(await allows(policy, principal({ 'default-marker': 'x' }))).toBe(true);
    expect(await allows(policy, principal({ 'fallback-marker': 'x' }))).toBe(false);
  });

  it('treats an authorize with an empty roles list as bare, using the default policy', () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ roles: [] }] });
    expect(policy!.requirements).toEqual(defaultPolicy.requirements);
  });

  it('requires an authenticated user in any one of the roles for an authorize with roles', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ roles: ['Admin', 'Support'] }] });
    expect(policy!.requirements.some((requirement) => requirement instanceof DenyAnonymousRequirement)).toBe(true);
    expect(await allows(policy, principal({ role: 'Support' }))).toBe(true);
    expect(await allows(policy, principal({ role: 'admin' }))).toBe(false);
    expect(await allows(policy, principal({ role: 'Admin' }, null))).toBe(false);
    // Roles replace the default policy: its extra requirement is not added.
    expect(await allows(policy, principal({ role: 'Admin' }))).toBe(true);
  });

  it('requires both the roles and the policy when one authorize names both', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ policy: 'Sales', roles: ['Manager'] }] });
    expect(policy!.requirements.some((requirement) => requirement instanceof RolesRequirement)).toBe(true);
    expect(await allows(policy, principal({ department: 'sales', role: 'Manager' }))).toBe(true);
    expect(await allows(policy, principal({ department: 'sales' }))).toBe(false);
    expect(await allows(policy, principal({ role: 'Manager' }))).toBe(false);
  });

  it('requires every entry when an endpoint carries several authorize entries', async () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ policy: 'Sales' }, { roles: ['Manager'] }] });
    expect(await allows(policy, principal({ department: 'sales', role: 'Manager' }))).toBe(true);
    expect(await allows(policy, principal({ department: 'sales' }))).toBe(false);
    expect(await allows(policy, principal({ role: 'Manager' }))).toBe(false);
  });

  it('carries the schemes an authorize names into the policy’s authentication schemes', () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ schemes: ['ApiKey'] }] });
    expect(policy!.authenticationSchemes).toEqual(['ApiKey']);
    expect(policy!.requirements).toEqual(defaultPolicy.requirements);
  });

  it('joins named schemes with the named policy’s own schemes, without duplicates', () => {
    const policy = resolveEndpointPolicy(provider, { authorize: [{ policy: 'Auditors', schemes: ['Bearer', 'ApiKey'] }] });
    expect(policy!.authenticationSchemes).toEqual(['ApiKey', 'Bearer']);
  });

  it('carries a group’s schemes when the group applies', () => {
    const policy = resolveEndpointPolicy(provider, {}, { authorize: [{ roles: ['Admin'], schemes: ['Cookies'] }] });
    expect(policy!.authenticationSchemes).toEqual(['Cookies']);
  });

  it('throws for an unknown policy name', () => {
    expect(() => resolveEndpointPolicy(provider, { authorize: [{ policy: 'Nope' as Name }] })).toThrow(/"Nope"/);
  });

  it('throws for an unknown policy name on the group when the group applies', () => {
    expect(() => resolveEndpointPolicy(provider, {}, { authorize: [{ policy: 'Nope' as Name }] })).toThrow(/"Nope"/);
  });
});
