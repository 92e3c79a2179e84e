/**
 * ChangeRules: each change is announced once it has committed, and only when something changed;
 * the command line's rules keep no admin (it is the way back into a service without one), a
 * running instance's keep one who can sign in.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../../test/helpers/databases.ts';
import { useTestApp } from '../../test/helpers/test-app.ts';
import { CLI_OPERATOR } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';
import { createMembership } from './membership.ts';

const [sqlite] = await testEngines();

describe('the use cases under a caller\'s ChangeRules', () => {
  const ctx = useTestApp(sqlite!);

  function membershipWith(keepAnAdmin: boolean) {
    const announced: string[] = [];
    const rules: ChangeRules = {
      keepAnAdmin,
      announceRevocation: async () => {
        announced.push('announced');
      },
    };
    return { membership: createMembership(ctx.services, rules), announced };
  }

  it('announces each change once, after it committed, and nothing for a change that changed nothing', async () => {
    const { membership, announced } = membershipWith(false);
    const { user } = await ctx.createUser();
    expect(await membership.users.addRole(user.id, 'Editor', CLI_OPERATOR)).toBe(true);
    expect(announced).toHaveLength(1);
    expect(await membership.users.addRole(user.id, 'Editor', CLI_OPERATOR)).toBe(false);
    expect(await membership.users.removeRole(user.id, 'Missing', CLI_OPERATOR)).toBe(false);
    expect(await membership.users.addClaim(user.id, { type: 'tier', value: 'gold' })).toBe(true);
    expect(await membership.users.addClaim(user.id, { type: 'tier', value: 'gold' })).toBe(false);
    expect(announced).toHaveLength(2);
    // An unlock takes nothing away: written, not announced.
    expect(await membership.users.unlock(user.id, CLI_OPERATOR)).toBe(true);
    expect(announced).toHaveLength(2);
    const events = (await membership.auditTrail.page({ limit: 10 })).events.map((event) => [event.type, event.detail]);
    expect(events).toEqual([
      ['user.unlocked', { by: 'cli' }],
      ['role.added', { role: 'Editor', by: 'cli' }],
    ]);
  });

  it('the command line\'s rules let the last admin go; a running instance\'s refuse (409)', async () => {
    const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
    await expect(membershipWith(true).membership.users.removeRole(admin.id, 'Admin', CLI_OPERATOR)).rejects.toMatchObject({ code: 'GH_CONFLICT' });
    const { membership, announced } = membershipWith(false);
    expect(await membership.users.removeRole(admin.id, 'Admin', CLI_OPERATOR)).toBe(true);
    expect(await membership.users.delete(admin.id, CLI_OPERATOR)).toBe(true);
    expect(announced).toHaveLength(2);
  });
});
