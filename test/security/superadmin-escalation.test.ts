/**
 * SuperAdmin escalation — an `Admin` (the admin API's group policy) tries to grant `SuperAdmin`,
 * which rules every organization, to himself or an accomplice, or to take it from a real
 * `SuperAdmin`. Only a caller who holds `SuperAdmin` may grant or remove it: anyone else gets the
 * 403 problem (naming no requirement), before the target user is even looked up (no 404 that
 * tells which ids exist), and nothing changes. Other roles stay the `Admin`'s to manage. The CLI,
 * run by the operator, may grant it (test/cli/cli.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

describe('SuperAdmin escalation over the admin API (SQLite)', () => {
  const ctx = useTestApp(sqlite!);

  async function caller(roles: string[]) {
    const { user } = await ctx.createUser({ roles });
    return { user, headers: bearer(await ctx.tokenFor(user)) };
  }

  const grant = (headers: Record<string, string>, id: number, role: string) =>
    ctx.app.inject({ method: 'POST', url: `/admin/users/${id}/roles`, headers, payload: { role } });
  const revoke = (headers: Record<string, string>, id: number, role: string) =>
    ctx.app.inject({ method: 'DELETE', url: `/admin/users/${id}/roles/${role}`, headers });
  const rolesOf = async (id: number) => (await ctx.services.store.users.findById(id))?.roles;
  const roleEvents = async () =>
    (await ctx.services.store.audit.list({ limit: 100 })).filter((event) => event.type === 'role.added' || event.type === 'role.removed');

  function expectForbidden(response: Awaited<ReturnType<typeof grant>>) {
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(json(response)).toEqual({ type: expect.any(String), title: 'Forbidden', status: 403, code: 'GH_FORBIDDEN', policy: ['Bearer'] });
  }

  it('refuses an Admin who grants SuperAdmin to himself: 403, no role, no audit event, still no organization rights', async () => {
    const admin = await caller(['Admin']);
    expectForbidden(await grant(admin.headers, admin.user.id, 'SuperAdmin'));
    expect(await rolesOf(admin.user.id)).toEqual(['Admin']);
    expect(await roleEvents()).toEqual([]);
    const fresh = bearer(await ctx.tokenFor((await ctx.services.store.users.findById(admin.user.id))!));
    expect((await ctx.app.inject({ method: 'POST', url: '/orgs', headers: fresh, payload: { name: 'Mine' } })).statusCode).toBe(403);
  });

  it('refuses an Admin who grants SuperAdmin to another user', async () => {
    const admin = await caller(['Admin']);
    const { user: accomplice } = await ctx.createUser();
    expectForbidden(await grant(admin.headers, accomplice.id, 'SuperAdmin'));
    expect(await rolesOf(accomplice.id)).toEqual([]);
  });

  it('answers 403, not 404, for an unknown user: the refusal tells nothing about which ids exist', async () => {
    const admin = await caller(['Admin']);
    expectForbidden(await grant(admin.headers, 999_999, 'SuperAdmin'));
  });

  it('refuses an Admin who removes SuperAdmin from a SuperAdmin', async () => {
    const admin = await caller(['Admin']);
    const { user: superAdmin } = await ctx.createUser({ roles: ['SuperAdmin'] });
    expectForbidden(await revoke(admin.headers, superAdmin.id, 'SuperAdmin'));
    expect(await rolesOf(superAdmin.id)).toEqual(['SuperAdmin']);
  });

  it('lets a SuperAdmin (who is also Admin) grant and remove SuperAdmin', async () => {
    const superAdmin = await caller(['Admin', 'SuperAdmin']);
    const { user: target } = await ctx.createUser();
    expect((await grant(superAdmin.headers, target.id, 'SuperAdmin')).statusCode).toBe(204);
    expect(await rolesOf(target.id)).toEqual(['SuperAdmin']);
    expect((await revoke(superAdmin.headers, target.id, 'SuperAdmin')).statusCode).toBe(204);
    expect(await rolesOf(target.id)).toEqual([]);
  });

  it('leaves an Admin every other role, including look-alikes that are other roles (case-sensitive)', async () => {
    const admin = await caller(['Admin']);
    const { user: target } = await ctx.createUser();
    for (const role of ['Editor', 'superadmin', 'SuperAdmins', 'OrgAdmin']) {
      expect((await grant(admin.headers, target.id, role)).statusCode, role).toBe(204);
    }
    expect(await rolesOf(target.id)).toEqual(expect.arrayContaining(['Editor', 'superadmin', 'SuperAdmins', 'OrgAdmin']));
    // None of them is SuperAdmin: POST /orgs stays closed to the target.
    const token = bearer(await ctx.tokenFor((await ctx.services.store.users.findById(target.id))!));
    expect((await ctx.app.inject({ method: 'POST', url: '/orgs', headers: token, payload: { name: 'Nope' } })).statusCode).toBe(403);
  });
});
