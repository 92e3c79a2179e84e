/**
 * The admin console over HTTP (docs/admin-console.md): `GET /admin/users` and `GET /admin/audit`
 * answer JSON callers exactly as the admin API does and browsers with the console's pages; the
 * console's forms post with the antiforgery field (400 without it), go through the use cases with
 * the admin named in the audit trail, and answer 303 back to the page; the audit log's filters
 * are checked (400: the page with the error, or problem+json). Everyone but role `Admin` is
 * refused: a signed-in user 403, the page for a browser; anonymous 401, a browser sent to log in.
 */
import { describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const origin = { origin: PUBLIC_URL };
const HTML = { accept: 'text/html,application/xhtml+xml' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Signs a new user with these roles in with the cookie; the Cookie header and the user. */
async function cookieOf(ctx: TestApp, roles: string[]) {
  const { user, password } = await ctx.createUser({ roles });
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', payload: { email: user.email, password } });
  expect(response.statusCode).toBe(200);
  return { user, cookie: cookiePair(authSetCookie(response)!) };
}

/** The rows of a page's table body. */
function tableRows(page: string): string[] {
  return [...(/<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '').matchAll(/<tr>[\s\S]*?<\/tr>/g)].map(([row]) => row);
}

describe.runIf(sqlite)('the admin console', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL } });

  describe('GET /admin/users and GET /admin/audit for JSON callers', () => {
    it('answers the admin API list of users as it is, whatever the query, with a token or the cookie', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      await ctx.createUser({ userName: 'json-editor', roles: ['Editor'] });
      await ctx.createUser({ emailConfirmed: false });
      const expected = JSON.parse(JSON.stringify(await ctx.app.gatehouse.users.list())) as unknown[];
      expect(expected).toHaveLength(3);
      for (const headers of [bearer(await ctx.tokenFor(admin)), { cookie }, { cookie, accept: 'application/json' }, { cookie, accept: '*/*' }]) {
        for (const url of ['/admin/users', '/admin/users?q=json&page=2']) {
          const response = await ctx.app.inject({ url, headers });
          expect(response.statusCode, url).toBe(200);
          expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(json(response)).toEqual(expected);
        }
      }
    });

    it('answers the audit trail as the admin API does, and refuses the console’s filters as unknown parameters', async () => {
      const { user: admin } = await cookieOf(ctx, ['Admin']);
      const headers = bearer(await ctx.tokenFor(admin));
      const { user } = await ctx.createUser();
      await ctx.app.gatehouse.users.addRole(user.id, 'Editor', { by: admin.id, ip: '127.0.0.1' });
      const page = await ctx.app.gatehouse.audit.page({ limit: 50 });
      const response = await ctx.app.inject({ url: '/admin/audit', headers });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ events: page.events.map((event) => ({ ...event, at: new Date(event.at).toISOString() })), next: null });
      const limited = json<{ events: unknown[]; next: number }>(await ctx.app.inject({ url: '/admin/audit?limit=1', headers }));
      expect(limited.events).toHaveLength(1);
      expect(limited.next).toBe(page.events[0]!.id);

      for (const query of ['type=role.added', 'userId=1', 'from=2025-01-01', 'to=2025-01-01', 'other=1', 'limit=abc', 'limit=201']) {
        const refused = await ctx.app.inject({ url: `/admin/audit?${query}`, headers });
        expect(refused.statusCode, query).toBe(400);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(json(refused), query).toMatchObject({ code: 'GH_VALIDATION_FAILED' });
      }
      const filtered = await ctx.app.inject({ url: '/admin/audit?type=role.added&from=x', headers });
      expect(json(filtered)).toMatchObject({ errors: { type: ['This field is not allowed.'], from: ['This field is not allowed.'] } });
    });
  });

  describe('the pages for a browser', () => {
    it('answers the users, searched and paged by 50, as a page with a labelled search and a table with headers', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      for (let index = 0; index < 52; index++) await ctx.createUser({ userName: `paged-${String(index).padStart(2, '0')}` });
      await ctx.createUser({ userName: 'someone-else' });

      const first = await ctx.app.inject({ url: '/admin/users?q=PAGED-', headers: { ...HTML, cookie } });
      expect(first.statusCode).toBe(200);
      expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(first.headers['content-security-policy']).toContain("default-src 'none'");
      expect(first.body.match(/<h1>/g)).toHaveLength(1);
      expect(first.body).toContain('<label for="q">Search by e-mail or user name</label>');
      expect(first.body).toContain('<caption>Users, page 1 of 2</caption>');
      expect(first.body).toContain('<th scope="col">E-mail</th>');
      expect(first.body).toContain('52 users match “PAGED-”.');
      expect(tableRows(first.body)).toHaveLength(50);
      expect(first.body).toContain('href="/admin/users?q=PAGED-&amp;page=2"');
      const second = await ctx.app.inject({ url: '/admin/users?q=PAGED-&page=2', headers: { ...HTML, cookie } });
      expect(tableRows(second.body)).toHaveLength(2);
      expect(second.body).toContain('paged-51');
      expect(second.body).not.toContain('someone-else');

      const bad = await ctx.app.inject({ url: '/admin/users?page=0', headers: { ...HTML, cookie } });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('The page is a whole number, 1 or more.');
    });

    it('answers the audit log as a page, filtered by type, user and time, and a filter that is not one as 400 with the message', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser();
      const { users } = ctx.app.gatehouse;
      await users.addRole(user.id, 'Editor', { by: admin.id });
      await users.lock(user.id, { by: admin.id });
      await users.unlock(user.id, { by: admin.id });

      const all = await ctx.app.inject({ url: '/admin/audit', headers: { ...HTML, cookie } });
      expect(all.statusCode).toBe(200);
      expect(all.body).toContain('<caption>Security events, newest first</caption>');
      expect(all.body).toContain('<label for="filter-from">From</label>');
      const locked = await ctx.app.inject({ url: `/admin/audit?type=user.locked&userId=${user.id}&from=2000-01-01&to=2999-12-31`, headers: { ...HTML, cookie } });
      expect(locked.statusCode).toBe(200);
      expect(tableRows(locked.body)).toHaveLength(1);
      expect(tableRows(locked.body)[0]).toContain('user.locked');
      expect(locked.body).toContain(`<code>{&quot;by&quot;:${admin.id}}</code>`);
      const none = await ctx.app.inject({ url: '/admin/audit?from=2999-01-01', headers: { ...HTML, cookie } });
      expect(none.body).toContain('No security event matches.');

      for (const [query, field, message] of [
        ['from=yesterday', 'from', 'Give a day (2025-01-31) or a time (2025-01-31T14:30), in UTC.'],
        ['to=2025-02-30', 'to', 'Give a day (2025-01-31) or a time (2025-01-31T14:30), in UTC.'],
        ['from=2025-02-01&to=2025-01-01', 'to', 'Until must come after From.'],
        ['userId=abc', 'userId', 'A user id is a whole number, 1 or more.'],
      ]) {
        const refused = await ctx.app.inject({ url: `/admin/audit?${query}`, headers: { ...HTML, cookie } });
        expect(refused.statusCode, query).toBe(400);
        expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(refused.body).toContain(`<p id="filter-${field}-error" class="error">${message}</p>`);
        expect(refused.body).toContain('role="alert"');
      }
    });

    it('shows the overview and a user’s page with its forms, each with the antiforgery field', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser({ userName: 'shown-user', roles: ['Editor'], emailConfirmed: false });
      const home = await ctx.app.inject({ url: '/admin', headers: { ...HTML, cookie } });
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain('<h1>Admin console</h1>');
      expect(home.body).toContain('<a href="/admin/users">Users</a></dt><dd>2</dd>');

      const page = await ctx.app.inject({ url: `/admin/users/${user.id}`, headers: { ...HTML, cookie } });
      expect(page.statusCode).toBe(200);
      const forms = [...page.body.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
      expect(forms.map(([, action]) => action).sort()).toEqual(
        [`/admin/users/${user.id}/lock`, `/admin/users/${user.id}/resend-confirmation`, `/admin/users/${user.id}/roles`, `/admin/users/${user.id}/roles/Editor/remove`].sort(),
      );
      // Signed in nowhere: nothing to end.
      expect(page.body).toContain('Signed in nowhere.');
      for (const [, action, body] of forms) expect(body, action).toContain('name="__RequestVerificationToken"');
      expect((await ctx.app.inject({ url: '/admin/users/999999', headers: { ...HTML, cookie } })).statusCode).toBe(404);
    });
  });

  describe('in the language of the request', () => {
    const GERMAN = { ...HTML, 'accept-language': 'de' };

    it('speaks German to a browser that asks for it: <html lang>, heading, navigation, count, a notice after a lock and the console’s own refusals', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser();
      const users = await ctx.app.inject({ url: '/admin/users', headers: { ...GERMAN, cookie } });
      expect(users.statusCode).toBe(200);
      expect(users.body).toContain('<html lang="de">');
      expect(users.body).toContain('<h1>Benutzer</h1>');
      expect(users.body).toContain('<nav aria-label="Verwaltungskonsole"><a href="/admin">Übersicht</a> <a href="/admin/users" aria-current="page">Benutzer</a> <a href="/admin/audit">Audit-Protokoll</a>');
      expect(users.body).toContain('<label for="q">Nach E-Mail oder Benutzername suchen</label>');
      expect(users.body).toMatch(/<p id="users-count" role="status">\d+ Benutzer insgesamt\.<\/p>/);
      expect(users.body).not.toContain('Search by e-mail');

      const lock = await pageForm(ctx.app, `/admin/users/${user.id}`, `/admin/users/${user.id}/lock`, { cookie, 'accept-language': 'de' });
      const locked = await lock.submit({ ...origin, 'accept-language': 'de' });
      expect(locked.headers.location).toBe(`/admin/users/${user.id}?status=locked`);
      const after = await ctx.app.inject({ url: locked.headers.location as string, headers: { ...GERMAN, cookie } });
      expect(after.body).toContain('<p class="notice" role="status">Das Konto ist gesperrt: Alle seine Sitzungen sind beendet.</p>');
      expect(after.body).toContain('<dd id="user-status">Von einem Administrator gesperrt</dd>');
      expect(after.body).toContain('aria-label="Das Konto entsperren">Entsperren</button>');

      const filter = await ctx.app.inject({ url: '/admin/audit?from=gestern', headers: { ...GERMAN, cookie } });
      expect(filter.statusCode).toBe(400);
      expect(filter.body).toContain('<p id="filter-from-error" class="error">Geben Sie einen Tag (2025-01-31) oder eine Uhrzeit (2025-01-31T14:30) an, in UTC.</p>');
      const keys = await pageForm(ctx.app, '/admin/api-keys', '/admin/api-keys', { cookie, 'accept-language': 'de' });
      const revoke = await ctx.app.inject({
        method: 'POST',
        url: '/admin/api-keys/revoke',
        headers: { ...FORM, ...GERMAN, ...origin, cookie: keys.cookie },
        payload: new URLSearchParams({ ...keys.fields, client: 'nobody' }).toString(),
      });
      expect(revoke.statusCode).toBe(404);
      expect(revoke.body).toContain('<li>Die Anwendung hat keinen aktiven Schlüssel.</li>');
    });

    it('keeps English for a browser that names no language the service has', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      const home = await ctx.app.inject({ url: '/admin', headers: { ...HTML, 'accept-language': 'fr', cookie } });
      expect(home.body).toContain('<html lang="en">');
      expect(home.body).toContain('<h1>Admin console</h1>');
      expect(home.body).toContain('<nav aria-label="Admin console">');
    });
  });

  describe('an organization’s members', () => {
    /** An organization owned by a new user, with a second one as OrgMember; its console path. */
    async function organizationWithMembers(name: string) {
      const { user: owner } = await ctx.createUser();
      const { user: member } = await ctx.createUser();
      const { organizations } = ctx.app.gatehouse;
      const organization = await organizations.createOwnedBy(owner.id, { name });
      await organizations.addMember(organization.id, member.id, ['OrgMember']);
      return { organization, owner, member, path: `/admin/organizations/${organization.id}` };
    }

    const membersOf = async (organizationId: number) => ctx.services.store.organizations.listMembers(organizationId);

    it('lets a SuperAdmin change a member’s roles and remove a member through the use cases, 303 back to the page with the notice', async () => {
      const { user: superAdmin, cookie } = await cookieOf(ctx, ['Admin', 'SuperAdmin']);
      const { organization, owner, member, path } = await organizationWithMembers('Console Members');
      const roles = await pageForm(ctx.app, path, `${path}/members/${member.id}/roles`, { cookie });
      expect(roles.fields.roles).toBe('OrgMember');
      const payload = new URLSearchParams([...Object.entries(roles.fields), ['roles', 'OrgAdmin']]).toString();
      const changed = await ctx.app.inject({ method: 'POST', url: `${path}/members/${member.id}/roles`, headers: { ...FORM, ...HTML, ...origin, cookie: roles.cookie }, payload });
      expect(changed.statusCode).toBe(303);
      expect(changed.headers.location).toBe(`${path}?status=member-roles-changed`);
      expect((await membersOf(organization.id)).find((each) => each.userId === member.id)?.roles).toEqual(['OrgAdmin', 'OrgMember']);
      const [event] = await ctx.services.store.audit.list({ limit: 1 });
      expect(event).toMatchObject({ type: 'org.member.roles', userId: member.id, detail: { organizationId: organization.id, roles: ['OrgMember', 'OrgAdmin'], by: superAdmin.id } });
      const after = await ctx.app.inject({ url: changed.headers.location as string, headers: { ...HTML, cookie } });
      expect(after.body).toContain('<p class="notice" role="status">The member’s roles are changed.</p>');
      expect(after.body).toContain(`aria-label="Remove ${member.email} from the organization">Remove</button>`);

      const remove = await pageForm(ctx.app, path, `${path}/members/${member.id}/remove`, { cookie });
      const removed = await remove.submit(origin);
      expect(removed.statusCode).toBe(303);
      expect(removed.headers.location).toBe(`${path}?status=member-removed`);
      expect((await membersOf(organization.id)).map((each) => each.userId)).toEqual([owner.id]);
      const list = await ctx.app.inject({ url: removed.headers.location as string, headers: { ...HTML, cookie } });
      expect(list.body).toContain('<p class="notice" role="status">The member is removed from the organization.</p>');
      expect(tableRows(list.body).join('')).not.toContain(member.email);
      expect(tableRows(list.body)).toHaveLength(1);
    });

    it('refuses to remove the last OrgOwner: 409, the organization page again with the error, in the reader’s language', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin', 'SuperAdmin']);
      const { organization, owner, path } = await organizationWithMembers('Console Owners');
      const remove = await pageForm(ctx.app, path, `${path}/members/${owner.id}/remove`, { cookie });
      const refused = await remove.submit(origin);
      expect(refused.statusCode).toBe(409);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.body).toContain('role="alert"');
      expect(refused.body).toContain('An organization keeps at least one OrgOwner: make another member OrgOwner first.');
      expect(refused.body).toContain(`<h1>Console Owners</h1>`);
      expect((await membersOf(organization.id)).map((each) => each.userId)).toContain(owner.id);

      const german = await remove.submit({ ...origin, 'accept-language': 'de' });
      expect(german.statusCode).toBe(409);
      expect(german.body).toContain('<html lang="de">');
      expect(german.body).toContain('role="alert"');
      expect(german.body).toContain(`aria-label="${owner.email} aus der Organisation entfernen">Entfernen</button>`);
      expect(german.body).toContain('<th scope="col">Beigetreten</th>');
    });

    it('shows a plain Admin the members without any form, and refuses a forged post (403) as the JSON API does', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const { organization, member, path } = await organizationWithMembers('Console Readers');
      const page = await ctx.app.inject({ url: path, headers: { ...HTML, cookie } });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('<form method="post"');
      expect(tableRows(page.body).find((row) => row.includes(member.email))).toContain('<td>OrgMember</td>');

      // A valid antiforgery token of this admin's, from another console form.
      const own = await pageForm(ctx.app, '/admin/signing-keys', '/admin/signing-keys/rotate', { cookie });
      const token = own.fields.__RequestVerificationToken!;
      for (const [action, fields] of [
        [`${path}/members/${member.id}/remove`, {}],
        [`${path}/members/${member.id}/roles`, { roles: 'OrgAdmin' }],
      ] as const) {
        const payload = new URLSearchParams({ __RequestVerificationToken: token, ...fields }).toString();
        const refused = await ctx.app.inject({ method: 'POST', url: action, headers: { ...FORM, ...HTML, ...origin, cookie: own.cookie }, payload });
        expect(refused.statusCode, action).toBe(403);
        expect(refused.body, action).toContain('role="alert"');
        expect(refused.body, action).not.toContain('<form method="post"');
      }
      expect((await membersOf(organization.id)).find((each) => each.userId === member.id)?.roles).toEqual(['OrgMember']);
      const api = await ctx.app.inject({ method: 'DELETE', url: `/orgs/${organization.id}/members/${member.id}`, headers: bearer(await ctx.tokenFor(admin)) });
      expect(api.statusCode).toBe(403);
    });
  });

  describe('the forms', () => {
    it('locks and unlocks through the admin API’s routes, 303 back to the page, the admin named in the audit trail', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser();
      const lock = await pageForm(ctx.app, `/admin/users/${user.id}`, `/admin/users/${user.id}/lock`, { cookie });
      const locked = await lock.submit(origin);
      expect(locked.statusCode).toBe(303);
      expect(locked.headers.location).toBe(`/admin/users/${user.id}?status=locked`);
      expect((await ctx.services.store.users.findById(user.id))?.lockedByAdmin).toBe(true);
      const [event] = await ctx.services.store.audit.list({ limit: 1 });
      expect(event).toMatchObject({ type: 'user.locked', userId: user.id, ip: '127.0.0.1', detail: { by: admin.id } });

      const after = await ctx.app.inject({ url: locked.headers.location as string, headers: { ...HTML, cookie } });
      expect(after.body).toContain('The account is locked: every session of it ended.');
      expect(after.body).toContain('<dd id="user-status">Locked by an admin</dd>');
      const unlocked = await (await pageForm(ctx.app, `/admin/users/${user.id}`, `/admin/users/${user.id}/unlock`, { cookie })).submit(origin);
      expect(unlocked.headers.location).toBe(`/admin/users/${user.id}?status=unlocked`);
      expect((await ctx.services.store.users.findById(user.id))?.lockedByAdmin).toBe(false);
    });

    it('deletes a user from the confirmation page, 303 to the list; the twin of DELETE takes forms only', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser();
      const confirm = await ctx.app.inject({ url: `/admin/users/${user.id}/delete`, headers: { ...HTML, cookie } });
      expect(confirm.body).toContain(`<h1>Delete ${user.email}?</h1>`);
      const json415 = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/delete`, headers: bearer(await ctx.tokenFor(admin)), payload: {} });
      expect(json415.statusCode).toBe(415);

      const form = await pageForm(ctx.app, `/admin/users/${user.id}/delete`, `/admin/users/${user.id}/delete`, { cookie });
      const deleted = await form.submit(origin);
      expect(deleted.statusCode).toBe(303);
      expect(deleted.headers.location).toBe('/admin/users?status=user-deleted');
      expect(await ctx.services.store.users.findById(user.id)).toBeNull();
      const [event] = await ctx.services.store.audit.list({ limit: 1 });
      expect(event).toMatchObject({ type: 'user.deleted', userId: user.id, detail: { by: admin.id } });
      const list = await ctx.app.inject({ url: deleted.headers.location as string, headers: { ...HTML, cookie } });
      expect(list.body).toContain('The account is deleted.');
      expect((await form.submit(origin)).statusCode).toBe(404);
    });

    it('refuses a form without the antiforgery field (400) and changes nothing', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser({ roles: ['Editor'] });
      const posts = [`/admin/users/${user.id}/lock`, `/admin/users/${user.id}/roles/Editor/remove`, `/admin/users/${user.id}/delete`, '/admin/signing-keys/rotate'];
      const kids = (await ctx.app.gatehouse.signingKeys.list()).length;
      for (const url of posts) {
        const response = await ctx.app.inject({ method: 'POST', url, headers: { ...FORM, ...HTML, cookie, ...origin }, payload: 'role=Editor' });
        expect(response.statusCode, url).toBe(400);
      }
      const stored = await ctx.services.store.users.findById(user.id);
      expect(stored).toMatchObject({ lockedByAdmin: false, roles: ['Editor'] });
      expect(await ctx.app.gatehouse.signingKeys.list()).toHaveLength(kids);
    });

    it('refuses a signed-in user without role Admin (403, the page for a browser), whatever the form carries', async () => {
      const { cookie } = await cookieOf(ctx, ['Editor']);
      const { user } = await ctx.createUser();
      // A valid antiforgery token of this user's, from a form of the profile page.
      const own = await pageForm(ctx.app, '/account/profile', '/account/password', { cookie });
      const payload = new URLSearchParams({ __RequestVerificationToken: own.fields.__RequestVerificationToken! }).toString();
      for (const url of [`/admin/users/${user.id}/lock`, `/admin/users/${user.id}/delete`, '/admin/api-keys']) {
        const refused = await ctx.app.inject({ method: 'POST', url, headers: { ...FORM, ...HTML, cookie: own.cookie, ...origin }, payload });
        expect(refused.statusCode, url).toBe(403);
      }
      expect(await ctx.services.store.users.findById(user.id)).toMatchObject({ lockedByAdmin: false });
      for (const url of ['/admin', '/admin/users', `/admin/users/${user.id}`, '/admin/audit', '/admin/api-keys', '/admin/signing-keys', '/admin/organizations']) {
        const page = await ctx.app.inject({ url, headers: { ...HTML, cookie } });
        expect(page.statusCode, url).toBe(403);
        expect(page.body, url).toContain('<h1>Access denied</h1>');
        const api = await ctx.app.inject({ url, headers: { cookie, accept: 'application/json' } });
        expect(api.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      }
    });

    it('sends an anonymous browser to the login page and answers an anonymous API caller 401', async () => {
      const browser = await ctx.app.inject({ url: '/admin/users', headers: HTML });
      expect(browser.statusCode).toBe(302);
      expect(browser.headers.location).toBe(`/account/login?ReturnUrl=${encodeURIComponent('/admin/users')}`);
      const api = await ctx.app.inject({ url: '/admin' });
      expect(api.statusCode).toBe(401);
    });

    it('keeps the last usable admin: the lock is refused on the page with the message (409)', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const lock = await pageForm(ctx.app, `/admin/users/${admin.id}`, `/admin/users/${admin.id}/lock`, { cookie });
      const refused = await lock.submit(origin);
      expect(refused.statusCode).toBe(409);
      expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(refused.body).toContain('role="alert"');
      expect((await ctx.services.store.users.findById(admin.id))?.lockedByAdmin).toBe(false);
    });

    it('shows a new API key on the next page once, and revokes the client', async () => {
      const { cookie } = await cookieOf(ctx, ['Admin']);
      const create = await pageForm(ctx.app, '/admin/api-keys', '/admin/api-keys', { cookie });
      const created = await create.submit(origin, { client: 'reporting' });
      expect(created.statusCode).toBe(303);
      expect(created.headers.location).toBe('/admin/api-keys?status=key-created');
      const carried = cookiePair(authSetCookie(created, 'gh.newkey')!);
      const shown = await ctx.app.inject({ url: created.headers.location as string, headers: { ...HTML, cookie: `${create.cookie}; ${carried}` } });
      const key = /<code id="new-key-value">([^<]+)<\/code>/.exec(shown.body)?.[1];
      expect(key).toBeDefined();
      expect(authSetCookie(shown, 'gh.newkey')).toMatch(/^gh\.newkey=;/);
      expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key! } })).statusCode).toBe(200);
      // Another admin in that browser does not see it.
      const other = await cookieOf(ctx, ['Admin']);
      const theirs = await ctx.app.inject({ url: '/admin/api-keys', headers: { ...HTML, cookie: `${other.cookie}; ${carried}` } });
      expect(theirs.body).not.toContain('new-key-value');

      const revoke = await pageForm(ctx.app, '/admin/api-keys', '/admin/api-keys/revoke', { cookie });
      expect(revoke.fields.client).toBe('reporting');
      expect((await revoke.submit(origin)).headers.location).toBe('/admin/api-keys?status=client-revoked');
      expect((await ctx.app.inject({ url: '/integrations/whoami', headers: { 'x-api-key': key! } })).statusCode).toBe(401);
      const again = await revoke.submit(origin);
      expect(again.statusCode).toBe(404);
      expect(again.body).toContain('The client has no active key.');
    });

    it('audits a new API key in GET /admin/audit, the admin named, the key by its id and never the key', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const created = await (await pageForm(ctx.app, '/admin/api-keys', '/admin/api-keys', { cookie })).submit(origin, { client: 'reporting' });
      expect(created.statusCode).toBe(303);
      const shown = await ctx.app.inject({ url: created.headers.location as string, headers: { ...HTML, cookie: `${cookie}; ${cookiePair(authSetCookie(created, 'gh.newkey')!)}` } });
      const key = /<code id="new-key-value">([^<]+)<\/code>/.exec(shown.body)?.[1];
      expect(key).toMatch(/^ghk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);

      const audit = await ctx.app.inject({ url: '/admin/audit', headers: bearer(await ctx.tokenFor(admin)) });
      expect(audit.statusCode).toBe(200);
      const [event] = json<{ events: { type: string; detail: Record<string, unknown> }[] }>(audit).events;
      expect(event).toMatchObject({ type: 'apikey.created', userId: null, ip: '127.0.0.1' });
      expect(event!.detail).toEqual({ client: 'reporting', keyId: expect.any(Number), by: admin.id });
      const [, publicId, secret] = key!.split('_');
      for (const part of [key!, publicId!, secret!]) expect(audit.body).not.toContain(part);
      expect(ctx.logs.join('')).not.toContain(secret!);
    });

    it('audits a confirmation mail sent again, the admin named and no code; a confirmed address writes nothing', async () => {
      const { user: admin, cookie } = await cookieOf(ctx, ['Admin']);
      const { user } = await ctx.createUser({ emailConfirmed: false });
      const resend = await pageForm(ctx.app, `/admin/users/${user.id}`, `/admin/users/${user.id}/resend-confirmation`, { cookie });
      const sent = await resend.submit(origin);
      expect(sent.statusCode).toBe(303);
      expect(sent.headers.location).toBe(`/admin/users/${user.id}?status=confirmation-sent`);

      const headers = bearer(await ctx.tokenFor(admin));
      const audit = async () => json<{ events: { type: string; detail: Record<string, unknown> }[] }>(await ctx.app.inject({ url: '/admin/audit', headers })).events;
      const [event] = await audit();
      expect(event).toMatchObject({ type: 'user.confirmation.resent', userId: user.id, ip: '127.0.0.1' });
      expect(event!.detail).toEqual({ by: admin.id });

      const { user: confirmed } = await ctx.createUser();
      const before = await audit();
      const payload = new URLSearchParams(resend.fields).toString();
      const refused = await ctx.app.inject({ method: 'POST', url: `/admin/users/${confirmed.id}/resend-confirmation`, headers: { ...FORM, ...HTML, ...origin, cookie: resend.cookie }, payload });
      expect(refused.statusCode).toBe(409);
      expect(await audit()).toEqual(before);
    });
  });
});
