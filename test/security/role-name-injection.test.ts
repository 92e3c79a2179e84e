/**
 * Role-name injection — `POST /admin/users/:id/roles` with names that look like a role a policy
 * checks but are not (spaces, control characters, zero-width and look-alike letters), or that
 * would break the places roles travel (a comma list, a tab-separated CLI line, markup). Only
 * `^[A-Za-z][A-Za-z0-9_.-]{0,63}$` is a role name: anything else is a 400 problem+json naming
 * `errors.role`, the user's roles and claims stamp stay as they were, and no audit event is written.
 * Removing a role takes any name, so a role stored before the rule can still be taken away.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const INJECTED = [
  ['a trailing space', 'Admin '],
  ['a leading space', ' Admin'],
  ['an inner space', 'Super Admin'],
  ['a newline', 'Admin\nSuperAdmin'],
  ['a tab', 'Admin\tx'],
  ['a NUL', 'Admin\u0000'],
  ['a zero-width space', 'Ad\u200bmin'],
  ['a Cyrillic look-alike letter', '\u0410dmin'],
  ['a comma list', 'Admin,SuperAdmin'],
  ['markup', '<script>alert(1)</script>'],
  ['a leading digit', '1Admin'],
  ['a leading hyphen', '-Admin'],
  ['a leading dot', '.Admin'],
  ['a path', '../Admin'],
  ['65 characters', `A${'b'.repeat(64)}`],
  ['the empty string', ''],
] as const;

describe('role-name injection over the admin API (SQLite)', () => {
  const ctx = useTestApp(sqlite!);

  async function setup() {
    const { user: admin } = await ctx.createUser({ roles: ['Admin'] });
    const { user: target } = await ctx.createUser({ roles: ['Reader'] });
    return { headers: bearer(await ctx.tokenFor(admin)), target };
  }

  it.each(INJECTED)('refuses a role name with %s: 400 with errors.role, nothing changed, nothing audited', async (_, role) => {
    const { headers, target } = await setup();
    const before = await ctx.services.store.users.findById(target.id);
    const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${target.id}/roles`, headers, payload: { role } });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = json<{ status: number; errors: Record<string, string[]> }>(response);
    expect(body.status).toBe(400);
    expect(Object.keys(body.errors)).toEqual(['role']);
    const after = await ctx.services.store.users.findById(target.id);
    expect(after?.roles).toEqual(['Reader']);
    expect(after?.claimsStamp).toBe(before?.claimsStamp);
    const events = await ctx.services.store.audit.list({ limit: 50 });
    expect(events.filter((event) => event.type === 'role.added')).toEqual([]);
  });

  it('refuses a role that is not a string, as the schema says', async () => {
    const { headers, target } = await setup();
    for (const role of [['Admin'], 1, null, { name: 'Admin' }]) {
      const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${target.id}/roles`, headers, payload: { role } });
      expect(response.statusCode).toBe(400);
      expect(Object.keys(json<{ errors: Record<string, string[]> }>(response).errors)).toEqual(['role']);
    }
  });

  it('accepts names within the rule: letters, digits, dots, underscores, hyphens, up to 64', async () => {
    const { headers, target } = await setup();
    for (const role of ['Editor', 'content.editor_2-eu', `A${'b'.repeat(63)}`, 'x']) {
      const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${target.id}/roles`, headers, payload: { role } });
      expect(response.statusCode, `${role}: ${response.body}`).toBe(204);
    }
    expect((await ctx.services.store.users.findById(target.id))?.roles).toEqual(
      expect.arrayContaining(['Reader', 'Editor', 'content.editor_2-eu', `A${'b'.repeat(63)}`, 'x']),
    );
  });

  it('does not repeat the refused name in the problem, so markup in it goes back nowhere', async () => {
    const { headers, target } = await setup();
    const role = '<img src=x onerror=alert(1)>';
    const response = await ctx.app.inject({ method: 'POST', url: `/admin/users/${target.id}/roles`, headers, payload: { role } });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain('<img');
  });

  it('still removes a role stored before the rule (written to the store directly)', async () => {
    const { headers, target } = await setup();
    await ctx.services.store.users.addRole(target.id, 'Legacy Role');
    const response = await ctx.app.inject({ method: 'DELETE', url: `/admin/users/${target.id}/roles/${encodeURIComponent('Legacy Role')}`, headers });
    expect(response.statusCode).toBe(204);
    expect((await ctx.services.store.users.findById(target.id))?.roles).toEqual(['Reader']);
  });
});
