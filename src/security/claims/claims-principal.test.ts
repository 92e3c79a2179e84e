import { describe, expect, it } from 'vitest';
import { Claim } from './claim.ts';
import { ClaimsIdentity } from './claims-identity.ts';
import { ClaimsPrincipal } from './claims-principal.ts';

function identity(claims: Record<string, string | string[]>, authenticationType: string | null = 'Bearer'): ClaimsIdentity {
  const list = Object.entries(claims).flatMap(([type, value]) =>
    (Array.isArray(value) ? value : [value]).map((item) => new Claim(type, item)),
  );
  return new ClaimsIdentity(list, authenticationType);
}

describe('ClaimsIdentity', () => {
  it('is authenticated when a scheme vouched for it (it has an authentication type)', () => {
    expect(identity({ sub: '1' }, 'Bearer').isAuthenticated).toBe(true);
  });

  it('is not authenticated without an authentication type, whatever claims it carries', () => {
    expect(identity({ sub: '1', role: 'Admin' }, null).isAuthenticated).toBe(false);
    expect(new ClaimsIdentity().isAuthenticated).toBe(false);
  });

  it('is not authenticated with an empty authentication type', () => {
    expect(identity({ sub: '1' }, '').isAuthenticated).toBe(false);
  });

  it('takes its name from the `name` claim', () => {
    expect(identity({ name: 'alice', email: 'alice@example.com' }).name).toBe('alice');
  });

  it('has a null name when it has no `name` claim (an API-key identity)', () => {
    expect(identity({ client: 'billing' }, 'ApiKey').name).toBeNull();
  });

  it('keeps a copy of the claims it was given', () => {
    const claims = [new Claim('sub', '1')];
    const created = new ClaimsIdentity(claims, 'Bearer');
    claims.push(new Claim('role', 'Admin'));
    expect(created.claims.map((claim) => claim.type)).toEqual(['sub']);
  });
});

describe('ClaimsPrincipal', () => {
  it('lists its identities in the order given', () => {
    const first = identity({ sub: '1' }, 'Bearer');
    const second = identity({ client: 'billing' }, 'ApiKey');
    expect(new ClaimsPrincipal([first, second]).identities).toEqual([first, second]);
  });

  it('is authenticated when any of its identities is', () => {
    const principal = new ClaimsPrincipal([identity({}, null), identity({ sub: '1' }, 'Cookies')]);
    expect(principal.isAuthenticated).toBe(true);
  });

  it('is not authenticated when none of its identities is', () => {
    expect(new ClaimsPrincipal([identity({ sub: '1' }, null), identity({ sub: '2' }, '')]).isAuthenticated).toBe(false);
  });

  it('is not authenticated when it is anonymous', () => {
    const anonymous = ClaimsPrincipal.anonymous();
    expect(anonymous.isAuthenticated).toBe(false);
    expect(anonymous.identities).toHaveLength(1);
    expect(anonymous.claims).toEqual([]);
  });

  it('takes its name from the `name` claim of its primary identity', () => {
    expect(new ClaimsPrincipal([identity({ sub: '7', name: 'alice' })]).name).toBe('alice');
  });

  it('takes its name from the first authenticated identity, not from an unauthenticated one before it', () => {
    const principal = new ClaimsPrincipal([identity({ name: 'ghost' }, null), identity({ name: 'alice' }, 'Bearer')]);
    expect(principal.name).toBe('alice');
  });

  it('has a null name when its identity has no `name` claim', () => {
    expect(new ClaimsPrincipal([identity({ client: 'billing' }, 'ApiKey')]).name).toBeNull();
    expect(ClaimsPrincipal.anonymous().name).toBeNull();
  });

  it('does not use the e-mail as a name when there is no `name` claim', () => {
    expect(new ClaimsPrincipal([identity({ sub: '1', email: 'alice@example.com' })]).name).toBeNull();
  });

  it('gives its subject from the `sub` claim', () => {
    expect(new ClaimsPrincipal([identity({ sub: '42', name: 'alice' })]).subject).toBe('42');
  });

  it('has a null subject without a `sub` claim', () => {
    expect(new ClaimsPrincipal([identity({ client: 'billing' }, 'ApiKey')]).subject).toBeNull();
  });

  it('finds the subject in a later identity', () => {
    const principal = new ClaimsPrincipal([identity({ client: 'billing' }, 'ApiKey'), identity({ sub: '9' }, 'Bearer')]);
    expect(principal.subject).toBe('9');
  });

  it('is in a role it has a `role` claim for', () => {
    const principal = new ClaimsPrincipal([identity({ role: ['Editor', 'Admin'] })]);
    expect(principal.isInRole('Admin')).toBe(true);
    expect(principal.isInRole('Editor')).toBe(true);
  });

  it('compares roles case-sensitively', () => {
    const principal = new ClaimsPrincipal([identity({ role: 'Admin' })]);
    expect(principal.isInRole('admin')).toBe(false);
    expect(principal.isInRole('ADMIN')).toBe(false);
  });

  it('is not in a role named by another claim type', () => {
    const principal = new ClaimsPrincipal([identity({ group: 'Admin' })]);
    expect(principal.isInRole('Admin')).toBe(false);
  });

  it('has a claim of a type with any value when no value is asked for', () => {
    const principal = new ClaimsPrincipal([identity({ subscription: 'basic' })]);
    expect(principal.hasClaim('subscription')).toBe(true);
    expect(principal.hasClaim('age')).toBe(false);
  });

  it('has a claim with a value only when that exact value is present', () => {
    const principal = new ClaimsPrincipal([identity({ subscription: 'basic' })]);
    expect(principal.hasClaim('subscription', 'basic')).toBe(true);
    expect(principal.hasClaim('subscription', 'premium')).toBe(false);
    expect(principal.hasClaim('subscription', 'Basic')).toBe(false);
  });

  it('has a claim that only a second identity carries', () => {
    const principal = new ClaimsPrincipal([identity({ sub: '1' }), identity({ client: 'billing' }, 'ApiKey')]);
    expect(principal.hasClaim('client', 'billing')).toBe(true);
  });

  it('finds every claim of a type across all its identities, in order', () => {
    const principal = new ClaimsPrincipal([
      identity({ role: ['A', 'B'], sub: '1' }, 'Bearer'),
      identity({ role: 'C' }, 'Cookies'),
    ]);
    expect(principal.findAll('role').map((claim) => claim.value)).toEqual(['A', 'B', 'C']);
    expect(principal.findAll('missing')).toEqual([]);
  });

  it('lists the claims of all its identities', () => {
    const principal = new ClaimsPrincipal([identity({ sub: '1' }), identity({ client: 'billing' }, 'ApiKey')]);
    expect(principal.claims.map((claim) => `${claim.type}=${claim.value}`)).toEqual(['sub=1', 'client=billing']);
  });

  it('finds the first claim of a type, searching identities in order', () => {
    const principal = new ClaimsPrincipal([identity({ email: 'a@example.com' }), identity({ email: 'b@example.com' })]);
    expect(principal.findFirst('email')?.value).toBe('a@example.com');
    expect(principal.findFirst('missing')).toBeUndefined();
  });
});

describe('ClaimsPrincipal.merge', () => {
  it('keeps the authenticated identities of every principal, in order', () => {
    const bearer = identity({ sub: '1' }, 'Bearer');
    const apiKey = identity({ client: 'billing' }, 'ApiKey');
    const merged = ClaimsPrincipal.merge([new ClaimsPrincipal([bearer]), new ClaimsPrincipal([apiKey])]);
    expect(merged.identities).toEqual([bearer, apiKey]);
    expect(merged.subject).toBe('1');
    expect(merged.hasClaim('client', 'billing')).toBe(true);
  });

  it('drops unauthenticated identities, so their claims do not count', () => {
    const merged = ClaimsPrincipal.merge([
      new ClaimsPrincipal([identity({ role: 'Admin' }, null), identity({ sub: '1' }, 'Bearer')]),
      ClaimsPrincipal.anonymous(),
    ]);
    expect(merged.identities).toHaveLength(1);
    expect(merged.isInRole('Admin')).toBe(false);
    expect(merged.subject).toBe('1');
  });

  it('gives the anonymous principal when no identity is authenticated', () => {
    const merged = ClaimsPrincipal.merge([new ClaimsPrincipal([identity({ role: 'Admin' }, null)]), ClaimsPrincipal.anonymous()]);
    expect(merged).toBe(ClaimsPrincipal.anonymous());
    expect(merged.isAuthenticated).toBe(false);
    expect(merged.isInRole('Admin')).toBe(false);
  });

  it('gives the anonymous principal for no principals at all', () => {
    expect(ClaimsPrincipal.merge([])).toBe(ClaimsPrincipal.anonymous());
  });
});
