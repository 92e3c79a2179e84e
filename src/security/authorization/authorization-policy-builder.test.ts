import { describe, expect, it } from 'vitest';
import { Claim } from '../claims/claim.ts';
import { ClaimsIdentity } from '../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import { AuthorizationPolicy } from './authorization-policy.ts';
import { AuthorizationPolicyBuilder } from './authorization-policy-builder.ts';
import type { AuthorizationRequirement } from './authorization-requirement.ts';
import { AuthorizationService } from './authorization-service.ts';
import { PolicyProvider } from './policy-provider.ts';
import { DenyAnonymousRequirement } from './requirements/deny-anonymous-requirement.ts';

function principal(claims: Record<string, string | string[]>, authenticationType: string | null = 'Bearer'): ClaimsPrincipal {
  const list = Object.entries(claims).flatMap(([type, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => new Claim(type, item)),
  );
  return new ClaimsPrincipal([new ClaimsIdentity(list, authenticationType)]);
}

const service = new AuthorizationService();

async function allows(policy: AuthorizationPolicy, user: ClaimsPrincipal, resource: unknown = null): Promise<boolean> {
  return (await service.authorize(user, resource, policy)).succeeded;
}

describe('AuthorizationPolicyBuilder.requireClaim', () => {
  const policy = new AuthorizationPolicyBuilder().requireClaim('department').build();

  it('without values is met by the claim with any value', async () => {
    expect(await allows(policy, principal({ department: 'sales' }))).toBe(true);
    expect(await allows(policy, principal({ department: '' }))).toBe(true);
  });

  it('without values is not met when the claim is absent', async () => {
    expect(await allows(policy, principal({ team: 'sales' }))).toBe(false);
  });

  const valued = new AuthorizationPolicyBuilder().requireClaim('department', 'sales', 'support').build();

  it('with values is met by any one of the values', async () => {
    expect(await allows(valued, principal({ department: 'sales' }))).toBe(true);
    expect(await allows(valued, principal({ department: 'support' }))).toBe(true);
  });

  it('with values is not met by another value, nor by a value that differs in case', async () => {
    expect(await allows(valued, principal({ department: 'legal' }))).toBe(false);
    expect(await allows(valued, principal({ department: 'Sales' }))).toBe(false);
  });

  it('with values is met when one of several claims of the type carries an allowed value', async () => {
    expect(await allows(valued, principal({ department: ['legal', 'support'] }))).toBe(true);
  });

  it('with values is not met by an allowed value under another claim type', async () => {
    expect(await allows(valued, principal({ team: 'sales' }))).toBe(false);
  });
});

describe('AuthorizationPolicyBuilder.requireRole', () => {
  const policy = new AuthorizationPolicyBuilder().requireRole('Admin', 'Auditor').build();

  it('is met by any one of the roles', async () => {
    expect(await allows(policy, principal({ role: 'Admin' }))).toBe(true);
    expect(await allows(policy, principal({ role: ['User', 'Auditor'] }))).toBe(true);
  });

  it('is not met by another role', async () => {
    expect(await allows(policy, principal({ role: 'User' }))).toBe(false);
    expect(await allows(policy, principal({}))).toBe(false);
  });

  it('compares roles case-sensitively', async () => {
    expect(await allows(policy, principal({ role: 'admin' }))).toBe(false);
  });

  it('refuses to build a role requirement with no role', () => {
    expect(() => new AuthorizationPolicyBuilder().requireRole()).toThrow(/at least one role/);
  });
});

describe('AuthorizationPolicyBuilder.requireUserName', () => {
  const policy = new AuthorizationPolicyBuilder().requireUserName('alice').build();

  it('is met by an identity named exactly so', async () => {
    expect(await allows(policy, principal({ sub: '1', name: 'alice' }))).toBe(true);
  });

  it('is not met by another name, nor by the name in another case', async () => {
    expect(await allows(policy, principal({ sub: '2', name: 'bob' }))).toBe(false);
    expect(await allows(policy, principal({ sub: '1', name: 'Alice' }))).toBe(false);
  });

  it('is not met by a principal without a name (an API key)', async () => {
    expect(await allows(policy, principal({ client: 'alice' }, 'ApiKey'))).toBe(false);
  });

  it('is not met by the name under another claim type', async () => {
    expect(await allows(policy, principal({ sub: '1', email: 'alice' }))).toBe(false);
  });

  it('is not met by an unauthenticated identity that carries the name', async () => {
    expect(await allows(policy, principal({ name: 'alice' }, null))).toBe(false);
  });

  it('is met when any one of several identities has the name', async () => {
    const two = new ClaimsPrincipal([
      new ClaimsIdentity([new Claim('name', 'bob')], 'Bearer'),
      new ClaimsIdentity([new Claim('name', 'alice')], 'Cookies'),
    ]);
    expect(await allows(policy, two)).toBe(true);
  });

  it('refuses an empty name at build time', () => {
    expect(() => new AuthorizationPolicyBuilder().requireUserName('')).toThrow(/needs a name/);
  });
});

describe('AuthorizationPolicyBuilder.requireAssertion', () => {
  it('is met when a synchronous assertion returns true, and not when it returns false', async () => {
    const policy = new AuthorizationPolicyBuilder().requireAssertion((context) => context.user.subject === '7').build();
    expect(await allows(policy, principal({ sub: '7' }))).toBe(true);
    expect(await allows(policy, principal({ sub: '8' }))).toBe(false);
  });

  it('is met when an asynchronous assertion resolves true, and not when it resolves false', async () => {
    const policy = new AuthorizationPolicyBuilder()
      .requireAssertion(async (context) => {
        await new Promise((resolve) => setImmediate(resolve));
        return context.user.hasClaim('beta', 'yes');
      })
      .build();
    expect(await allows(policy, principal({ beta: 'yes' }))).toBe(true);
    expect(await allows(policy, principal({ beta: 'no' }))).toBe(false);
  });

  it('gives the assertion the resource', async () => {
    const policy = new AuthorizationPolicyBuilder()
      .requireAssertion((context) => (context.resource as { open: boolean } | null)?.open === true)
      .build();
    expect(await allows(policy, principal({}), { open: true })).toBe(true);
    expect(await allows(policy, principal({}), { open: false })).toBe(false);
  });

  it('keeps the description it is given, for logs', () => {
    const policy = new AuthorizationPolicyBuilder().requireAssertion(() => true, 'staff on duty').build();
    expect(policy.requirements[0]!.description).toBe('staff on duty');
  });
});

describe('AuthorizationPolicyBuilder.requireAuthenticatedUser', () => {
  const policy = new AuthorizationPolicyBuilder().requireAuthenticatedUser().build();

  it('is met by an authenticated principal', async () => {
    expect(await allows(policy, principal({ sub: '1' }))).toBe(true);
  });

  it('is not met by the anonymous principal', async () => {
    expect(await allows(policy, ClaimsPrincipal.anonymous())).toBe(false);
  });

  it('is not met by an unauthenticated principal that carries claims', async () => {
    expect(await allows(policy, principal({ sub: '1', role: 'Admin' }, null))).toBe(false);
  });

  it('never calls fail, so another handler is not vetoed', async () => {
    const result = await service.authorize(ClaimsPrincipal.anonymous(), null, policy);
    expect(result.failure?.failCalled).toBe(false);
    expect(result.failure?.failedRequirements).toEqual(policy.requirements);
  });
});

describe('AuthorizationPolicyBuilder', () => {
  it('adds custom requirements with addRequirement, all of them required', async () => {
    const first: AuthorizationRequirement & { handle(context: AuthorizationHandlerContext): void } = {
      description: 'first',
      handle(context) {
        if (context.user.hasClaim('a')) context.succeed(this);
      },
    };
    const second: AuthorizationRequirement & { handle(context: AuthorizationHandlerContext): void } = {
      description: 'second',
      handle(context) {
        if (context.user.hasClaim('b')) context.succeed(this);
      },
    };
    const policy = new AuthorizationPolicyBuilder().addRequirement(first, second).build();
    expect(policy.requirements).toEqual([first, second]);
    expect(await allows(policy, principal({ a: '1', b: '1' }))).toBe(true);
    expect(await allows(policy, principal({ a: '1' }))).toBe(false);
    expect(await allows(policy, principal({ b: '1' }))).toBe(false);
  });

  it('keeps the requirements in the order they were added', () => {
    const policy = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Admin').requireClaim('x').build();
    expect(policy.requirements.map((requirement) => requirement.constructor.name)).toEqual([
      'DenyAnonymousRequirement',
      'RolesRequirement',
      'ClaimsRequirement',
    ]);
  });

  it('requires every requirement of the policy (AND)', async () => {
    const policy = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Admin').requireClaim('department', 'it').build();
    expect(await allows(policy, principal({ role: 'Admin', department: 'it' }))).toBe(true);
    expect(await allows(policy, principal({ role: 'Admin', department: 'sales' }))).toBe(false);
    expect(await allows(policy, principal({ role: 'User', department: 'it' }))).toBe(false);
    expect(await allows(policy, principal({ role: 'Admin', department: 'it' }, null))).toBe(false);
  });

  it('collects authentication schemes from the constructor and authenticationSchemes, without duplicates', () => {
    const policy = new AuthorizationPolicyBuilder('Bearer')
      .authenticationSchemes('ApiKey', 'Bearer')
      .authenticationSchemes('ApiKey', 'Cookies')
      .requireAuthenticatedUser()
      .build();
    expect(policy.authenticationSchemes).toEqual(['Bearer', 'ApiKey', 'Cookies']);
  });

  it('builds a policy with no schemes when none are named', () => {
    expect(new AuthorizationPolicyBuilder().requireAuthenticatedUser().build().authenticationSchemes).toEqual([]);
  });

  it('refuses to build a policy with no requirement', () => {
    expect(() => new AuthorizationPolicyBuilder().build()).toThrow(/at least one requirement/);
    expect(() => new AuthorizationPolicyBuilder('Bearer').build()).toThrow(/at least one requirement/);
  });

  it('does not change a policy it already built when more is added afterwards', () => {
    const builder = new AuthorizationPolicyBuilder('Bearer').requireAuthenticatedUser();
    const policy = builder.build();
    builder.requireRole('Admin').authenticationSchemes('ApiKey');
    expect(policy.requirements).toHaveLength(1);
    expect(policy.authenticationSchemes).toEqual(['Bearer']);
  });

  it('combines another policy: its requirements and schemes are added', () => {
    const other = new AuthorizationPolicyBuilder('ApiKey').requireClaim('client').build();
    const policy = new AuthorizationPolicyBuilder('Bearer').requireAuthenticatedUser().combine(other).build();
    expect(policy.requirements).toEqual([expect.any(DenyAnonymousRequirement), ...other.requirements]);
    expect(policy.authenticationSchemes).toEqual(['Bearer', 'ApiKey']);
  });
});

describe('AuthorizationPolicy', () => {
  it('refuses to exist without a requirement', () => {
    expect(() => new AuthorizationPolicy([])).toThrow(/at least one requirement/);
  });

  it('cannot have its requirements or schemes changed once built', () => {
    const policy = new AuthorizationPolicy([new DenyAnonymousRequirement()], ['Bearer']);
    expect(() => (policy.requirements as AuthorizationRequirement[]).push({})).toThrow();
    expect(() => (policy.authenticationSchemes as string[]).push('ApiKey')).toThrow();
  });

  it('combines policies: every requirement of each, schemes joined without duplicates', async () => {
    const admins = new AuthorizationPolicyBuilder('Bearer').requireRole('Admin').build();
    const sales = new AuthorizationPolicyBuilder('Bearer', 'Cookies').requireClaim('department', 'sales').build();
    const combined = AuthorizationPolicy.combine(admins, sales);
    expect(combined.requirements).toEqual([...admins.requirements, ...sales.requirements]);
    expect(combined.authenticationSchemes).toEqual(['Bearer', 'Cookies']);
    expect(await allows(combined, principal({ role: 'Admin', department: 'sales' }))).toBe(true);
    expect(await allows(combined, principal({ role: 'Admin' }))).toBe(false);
    expect(await allows(combined, principal({ department: 'sales' }))).toBe(false);
  });

  it('refuses to combine nothing', () => {
    expect(() => AuthorizationPolicy.combine()).toThrow(/at least one requirement/);
  });
});

describe('PolicyProvider', () => {
  const adminOnly = new AuthorizationPolicyBuilder().requireRole('Admin').build();

  it('gives a named policy by its name', () => {
    const provider = new PolicyProvider<'AdminOnly'>({ policies: { AdminOnly: adminOnly } });
    expect(provider.get('AdminOnly')).toBe(adminOnly);
    expect(provider.has('AdminOnly')).toBe(true);
  });

  it('throws for an unknown policy name, naming it', () => {
    const provider = new PolicyProvider<'AdminOnly'>({ policies: { AdminOnly: adminOnly } });
    expect(provider.has('Nope')).toBe(false);
    expect(() => provider.get('Nope' as 'AdminOnly')).toThrow(/"Nope"/);
  });

  it('has default and fallback policies that require an authenticated user', async () => {
    const provider = new PolicyProvider({ policies: {} });
    for (const policy of [provider.defaultPolicy, provider.fallbackPolicy!]) {
      expect(await allows(policy, principal({ sub: '1' }))).toBe(true);
      expect(await allows(policy, ClaimsPrincipal.anonymous())).toBe(false);
      expect(await allows(policy, principal({ sub: '1' }, null))).toBe(false);
    }
  });

  it('honours a custom default policy and a custom fallback policy', () => {
    const defaultPolicy = new AuthorizationPolicyBuilder().requireClaim('a').build();
    const fallbackPolicy = new AuthorizationPolicyBuilder().requireClaim('b').build();
    const provider = new PolicyProvider({ policies: {}, defaultPolicy, fallbackPolicy });
    expect(provider.defaultPolicy).toBe(defaultPolicy);
    expect(provider.fallbackPolicy).toBe(fallbackPolicy);
  });

  it('keeps the default policy when only the fallback policy is customised, and the other way round', async () => {
    const custom = new AuthorizationPolicyBuilder().requireClaim('b').build();
    const withFallback = new PolicyProvider({ policies: {}, fallbackPolicy: custom });
    expect(withFallback.fallbackPolicy).toBe(custom);
    expect(await allows(withFallback.defaultPolicy, principal({ sub: '1' }))).toBe(true);
    expect(await allows(withFallback.defaultPolicy, ClaimsPrincipal.anonymous())).toBe(false);
    const withDefault = new PolicyProvider({ policies: {}, defaultPolicy: custom });
    expect(withDefault.defaultPolicy).toBe(custom);
    expect(await allows(withDefault.fallbackPolicy!, principal({ sub: '1' }))).toBe(true);
    expect(await allows(withDefault.fallbackPolicy!, ClaimsPrincipal.anonymous())).toBe(false);
  });
});
