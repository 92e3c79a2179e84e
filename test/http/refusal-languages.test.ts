/**
 * The use cases' refusals in the reader's language on every host (docs/errors.md, "Languages"):
 * a registration's password rules, a password change's wrong current password, an organization's
 * undeclared role and a member's missing standing. The `detail` and the field's errors follow
 * `Accept-Language`, `Content-Language` names it, and the `code` never changes; without the
 * header they stay the English texts they always were.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const APPLICATION = { by: 'application' } as const;
const GERMAN = { 'accept-language': 'de' };

describe.each(engines)("the use cases' refusals in the reader's language on $label", (engine) => {
  const ctx = useTestApp(engine);
  let addresses = 0;
  const newAddress = () => `refusal-${++addresses}-${process.pid}@example.com`;

  const register = (password: string, headers: Record<string, string> = {}) =>
    ctx.app.inject({ method: 'POST', url: '/account/register', headers, payload: { email: newAddress(), password } });

  it("refuses a registration's short or common password in German, and in English without the header", async () => {
    const short = await register('short', GERMAN);
    expect(short.statusCode).toBe(400);
    expect(short.headers['content-language']).toBe('de');
    expect(json(short)).toMatchObject({
      code: 'GH_VALIDATION_FAILED',
      detail: 'Die Anfrage ist ungültig.',
      errors: { password: ['Das Passwort muss mindestens 8 Zeichen haben.'] },
    });
    const common = await register('password123', GERMAN);
    expect(json(common)).toMatchObject({ code: 'GH_VALIDATION_FAILED', errors: { password: ['Dieses Passwort gehört zu den häufigsten Passwörtern; wählen Sie ein anderes.'] } });

    const english = await register('short');
    expect(english.statusCode).toBe(400);
    expect(english.headers['content-language']).toBe('en');
    expect(json(english)).toMatchObject({
      code: 'GH_VALIDATION_FAILED',
      detail: 'The request is not valid.',
      errors: { password: ['The password must have at least 8 characters.'] },
    });
    expect(json(await register('password123'))).toMatchObject({ errors: { password: ['This password is one of the most common passwords; choose another.'] } });
  });

  it('refuses a wrong current password in German, and in English without the header', async () => {
    const { user } = await ctx.createUser();
    const change = async (headers: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: '/account/password',
        headers: { ...bearer(await ctx.tokenFor(user)), ...headers },
        payload: { currentPassword: 'not the password at all', newPassword: 'Another-Passw0rd!' },
      });

    const german = await change(GERMAN);
    expect(german.statusCode).toBe(400);
    expect(german.headers['content-language']).toBe('de');
    expect(json(german)).toMatchObject({ code: 'GH_VALIDATION_FAILED', detail: 'Das aktuelle Passwort ist falsch.', errors: { currentPassword: ['Das aktuelle Passwort ist falsch.'] } });

    const english = await change({});
    expect(english.statusCode).toBe(400);
    expect(english.headers['content-language']).toBe('en');
    expect(json(english)).toMatchObject({ code: 'GH_VALIDATION_FAILED', detail: 'The current password is wrong.', errors: { currentPassword: ['The current password is wrong.'] } });
  });

  it("refuses an undeclared organization role and a member's missing standing in German, and in English without the header", async () => {
    const owner = await ctx.createUser();
    const member = await ctx.createUser();
    const { organizations } = ctx.app.gatehouse;
    const organization = await organizations.createOwnedBy(owner.user.id, { name: 'Acme Corp' }, APPLICATION);
    await organizations.addMember(organization.id, member.user.id, ['OrgMember'], APPLICATION);
    const declared = organizations.declaredRoles.join(', ');
    const patch = async (by: typeof owner, roles: string[], headers: Record<string, string>) =>
      ctx.app.inject({
        method: 'PATCH',
        url: `/orgs/${organization.id}/members/${member.user.id}`,
        headers: { ...bearer(await ctx.tokenFor(by.user)), ...headers },
        payload: { roles },
      });

    const german = await patch(owner, ['Billing'], GERMAN);
    expect(german.statusCode).toBe(400);
    expect(german.headers['content-language']).toBe('de');
    expect(json(german)).toMatchObject({ code: 'GH_VALIDATION_FAILED', errors: { roles: [`Keine Organisationsrolle: Billing. Die Rollen sind ${declared}.`] } });
    const english = await patch(owner, ['Billing'], {});
    expect(english.headers['content-language']).toBe('en');
    expect(json(english)).toMatchObject({ code: 'GH_VALIDATION_FAILED', errors: { roles: [`Not an organization role: Billing. The roles are ${declared}.`] } });

    const forbidden = await patch(member, ['OrgAdmin'], GERMAN);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.headers['content-language']).toBe('de');
    expect(json(forbidden)).toMatchObject({ code: 'GH_FORBIDDEN', detail: 'Nur ein OrgAdmin der Organisation darf die Rollen ihrer Mitglieder ändern.' });
    expect(json(await patch(member, ['OrgAdmin'], {}))).toMatchObject({ code: 'GH_FORBIDDEN', detail: "Only an OrgAdmin of the organization may change its members' roles." });
  });
});
