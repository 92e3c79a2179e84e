import { errorSummary, field, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, buttonForm, consoleNav, when } from './console.ts';

/** The user the page is about. */
export interface AdminUserView {
  readonly id: number;
  readonly email: string;
  readonly userName: string | null;
  readonly emailConfirmed: boolean;
  readonly roles: readonly string[];
  readonly lockedByAdmin: boolean;
  /** The end of an automatic lockout still running (epoch ms), or null. */
  readonly lockedOutUntil: number | null;
  readonly twoFactorEnabled: boolean;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** One of the user's sessions or token clients. */
export interface AdminSessionView {
  readonly kind: 'cookie' | 'token';
  /** Epoch ms. */
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
}

export interface AdminUserPageData extends AdminPageBase {
  readonly antiforgeryToken: string;
  readonly user: AdminUserView;
  /** Null when the service lists no sessions. */
  readonly sessions: readonly AdminSessionView[] | null;
  /** The role of a refused "Add" form, written back. */
  readonly role?: string;
}

export interface AdminUserPageModel extends AdminUserPageData {
  readonly links: AdminLinks;
}

/** One user: the account and its lock, the roles, the sessions, and the way to delete it. */
export function adminUserPage(model: AdminUserPageModel): PageContent {
  return {
    title: model.user.email,
    main: html`${consoleNav(model.links, model.sections, 'users', { within: true })}
${notice(model.notice)}
${errorSummary(model.errors ?? {})}
${accountSection(model)}
${rolesSection(model)}
${model.sessions === null ? '' : sessionsSection(model, model.sessions)}
${deleteSection(model)}`,
  };
}

function accountSection(model: AdminUserPageModel): Html {
  const { user, links, antiforgeryToken } = model;
  const lock = user.lockedByAdmin || user.lockedOutUntil !== null
    ? buttonForm(links.userUnlock(user.id), antiforgeryToken, 'Unlock', 'Unlock the account')
    : buttonForm(links.userLock(user.id), antiforgeryToken, 'Lock', 'Lock the account');
  const resend = user.emailConfirmed ? '' : buttonForm(links.userResendConfirmation(user.id), antiforgeryToken, 'Send the confirmation mail again', 'Send the confirmation mail again');
  return html`<section aria-labelledby="account-heading"><h2 id="account-heading">Account</h2>
<dl class="admin-details">
<dt>User id</dt><dd>${user.id}</dd>
<dt>E-mail</dt><dd id="user-email">${user.email}</dd>
<dt>User name</dt><dd>${user.userName ?? 'none'}</dd>
<dt>E-mail confirmed</dt><dd id="user-confirmed">${user.emailConfirmed ? 'Yes' : 'No'}</dd>
<dt>Status</dt><dd id="user-status">${status(user)}</dd>
<dt>Two-factor sign-in</dt><dd>${user.twoFactorEnabled ? 'On' : 'Off'}</dd>
<dt>Created</dt><dd>${when(user.createdAt)}</dd>
</dl>
${lock}
${resend}
</section>`;
}

function status(user: AdminUserView): Html | string {
  if (user.lockedByAdmin) return 'Locked by an admin';
  if (user.lockedOutUntil !== null) return html`Locked out after failed sign-ins until ${when(user.lockedOutUntil)}`;
  return 'Active';
}

function rolesSection(model: AdminUserPageModel): Html {
  const { user, links, antiforgeryToken } = model;
  const roles =
    user.roles.length === 0
      ? html`<p>No roles.</p>`
      : html`<ul class="admin-roles">${user.roles.map(
          (role) => html`<li><span class="role">${role}</span> ${buttonForm(links.userRoleRemove(user.id, role), antiforgeryToken, 'Remove', `Remove role ${role}`)}</li>`,
        )}</ul>`;
  const add = postForm(
    links.userRoles(user.id),
    antiforgeryToken,
    field({ name: 'role', label: 'Role to add', value: model.role, autocomplete: 'off', hint: 'A letter, then letters, digits, dots, underscores or hyphens.' }, model.errors ?? {}),
    'Add the role',
  );
  return html`<section aria-labelledby="roles-heading"><h2 id="roles-heading">Roles</h2>
${roles}
${add}
</section>`;
}

function sessionsSection(model: AdminUserPageModel, sessions: readonly AdminSessionView[]): Html {
  const { user, links, antiforgeryToken } = model;
  if (sessions.length === 0) {
    return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">Sessions</h2><p>Signed in nowhere.</p></section>`;
  }
  const rows = sessions.map(
    (session) => html`<tr><th scope="row">${session.kind === 'cookie' ? 'Browser' : 'App (tokens)'}</th><td>${when(session.createdAt)}</td><td>${when(session.lastSeenAt)}</td><td>${session.ip ?? ''}</td><td>${session.userAgent ?? ''}</td></tr>`,
  );
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">Sessions</h2>
<table class="admin-table">
<caption>Where ${user.email} is signed in</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col">From</th><th scope="col">Client</th></tr></thead>
<tbody>${rows}</tbody>
</table>
${buttonForm(links.userSessionsEnd(user.id), antiforgeryToken, 'End every session', 'End every session')}
</section>`;
}

function deleteSection({ user, links }: AdminUserPageModel): Html {
  return html`<section aria-labelledby="delete-heading"><h2 id="delete-heading">Delete</h2>
<p>Deleting the account ends its sessions and removes its roles, claims, passkeys and memberships; its audit events stay.</p>
<p><a href="${links.userDelete(user.id)}">Delete this user…</a></p>
</section>`;
}

export interface AdminUserDeletePageData extends AdminPageBase {
  readonly antiforgeryToken: string;
  readonly user: Pick<AdminUserView, 'id' | 'email'>;
}

export interface AdminUserDeletePageModel extends AdminUserDeletePageData {
  readonly links: AdminLinks;
}

/** The step before a deletion: what it does, the button that does it, and the way back. */
export function adminUserDeletePage(model: AdminUserDeletePageModel): PageContent {
  const { user, links } = model;
  return {
    title: `Delete ${user.email}?`,
    main: html`${consoleNav(links, model.sections, 'users', { within: true })}
${errorSummary(model.errors ?? {})}
<p>The account is deleted for good: every session and token of it ends at once, and it cannot be brought back. Its audit events stay.</p>
${postForm(links.userDelete(user.id), model.antiforgeryToken, html``, 'Delete the account')}
<p><a href="${links.user(user.id)}">Keep the account</a></p>`,
  };
}
