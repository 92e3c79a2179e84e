import type { AdminMessages } from '../../i18n/admin-messages.ts';
import { errorSummary, field, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, buttonForm, consoleNav, when, withMarkup } from './console.ts';

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
export function adminUserPage(model: AdminUserPageModel, { messages: m }: PageKit): PageContent {
  return {
    title: model.user.email,
    main: html`${consoleNav(model.links, model.sections, 'users', m, { within: true })}
${notice(model.notice)}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
${accountSection(model, m)}
${rolesSection(model, m)}
${model.sessions === null ? '' : sessionsSection(model, model.sessions, m)}
${deleteSection(model, m)}`,
  };
}

function accountSection(model: AdminUserPageModel, m: AdminMessages): Html {
  const { user, links, antiforgeryToken } = model;
  const lock = user.lockedByAdmin || user.lockedOutUntil !== null
    ? buttonForm(links.userUnlock(user.id), antiforgeryToken, m.adminUserUnlock, m.adminUserUnlockName)
    : buttonForm(links.userLock(user.id), antiforgeryToken, m.adminUserLock, m.adminUserLockName);
  const resend = user.emailConfirmed ? '' : buttonForm(links.userResendConfirmation(user.id), antiforgeryToken, m.adminUserResend, m.adminUserResend);
  return html`<section aria-labelledby="account-heading"><h2 id="account-heading">${m.adminUserAccountHeading}</h2>
<dl class="admin-details">
<dt>${m.adminUserId}</dt><dd>${user.id}</dd>
<dt>${m.adminEmail}</dt><dd id="user-email">${user.email}</dd>
<dt>${m.adminUserName}</dt><dd>${user.userName ?? m.adminUserNoUserName}</dd>
<dt>${m.adminEmailConfirmed}</dt><dd id="user-confirmed">${user.emailConfirmed ? m.adminYes : m.adminNo}</dd>
<dt>${m.adminStatus}</dt><dd id="user-status">${status(user, m)}</dd>
<dt>${m.adminUserTwoFactor}</dt><dd>${user.twoFactorEnabled ? m.adminUserTwoFactorOn : m.adminUserTwoFactorOff}</dd>
<dt>${m.adminCreated}</dt><dd>${when(user.createdAt)}</dd>
</dl>
${lock}
${resend}
</section>`;
}

function status(user: AdminUserView, m: AdminMessages): Html | string {
  if (user.lockedByAdmin) return m.adminUserLockedByAdmin;
  if (user.lockedOutUntil !== null) return withMarkup((until) => m.adminUserLockedOutUntil({ until }), when(user.lockedOutUntil));
  return m.adminActive;
}

function rolesSection(model: AdminUserPageModel, m: AdminMessages): Html {
  const { user, links, antiforgeryToken } = model;
  const roles =
    user.roles.length === 0
      ? html`<p>${m.adminUserNoRoles}</p>`
      : html`<ul class="admin-roles">${user.roles.map(
          (role) => html`<li><span class="role">${role}</span> ${buttonForm(links.userRoleRemove(user.id, role), antiforgeryToken, m.adminRemove, m.adminUserRemoveRole({ role }))}</li>`,
        )}</ul>`;
  const add = postForm(
    links.userRoles(user.id),
    antiforgeryToken,
    field({ name: 'role', label: m.adminUserRoleLabel, value: model.role, autocomplete: 'off', hint: m.adminUserRoleHint }, model.errors ?? {}),
    m.adminUserAddRole,
  );
  return html`<section aria-labelledby="roles-heading"><h2 id="roles-heading">${m.adminRoles}</h2>
${roles}
${add}
</section>`;
}

function sessionsSection(model: AdminUserPageModel, sessions: readonly AdminSessionView[], m: AdminMessages): Html {
  const { user, links, antiforgeryToken } = model;
  if (sessions.length === 0) {
    return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">${m.adminUserSessionsHeading}</h2><p>${m.adminUserSignedInNowhere}</p></section>`;
  }
  const rows = sessions.map(
    (session) => html`<tr><th scope="row">${session.kind === 'cookie' ? m.adminUserSessionBrowser : m.adminUserSessionApp}</th><td>${when(session.createdAt)}</td><td>${when(session.lastSeenAt)}</td><td>${session.ip ?? ''}</td><td>${session.userAgent ?? ''}</td></tr>`,
  );
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">${m.adminUserSessionsHeading}</h2>
${adminTable(m.adminUserSessionsCaption({ email: user.email }), [m.adminUserSessionKind, m.adminUserSessionSignedIn, m.adminUserSessionLastUsed, m.adminAddress, m.adminUserSessionClient], rows)}
${buttonForm(links.userSessionsEnd(user.id), antiforgeryToken, m.adminUserEndSessions, m.adminUserEndSessions)}
</section>`;
}

function deleteSection({ user, links }: AdminUserPageModel, m: AdminMessages): Html {
  return html`<section aria-labelledby="delete-heading"><h2 id="delete-heading">${m.adminUserDeleteHeading}</h2>
<p>${m.adminUserDeleteText}</p>
<p><a href="${links.userDelete(user.id)}">${m.adminUserDeleteLink}</a></p>
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
export function adminUserDeletePage(model: AdminUserDeletePageModel, { messages: m }: PageKit): PageContent {
  const { user, links } = model;
  return {
    title: m.adminUserDeleteTitle({ email: user.email }),
    main: html`${consoleNav(links, model.sections, 'users', m, { within: true })}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
<p>${m.adminUserDeleteWarning}</p>
${postForm(links.userDelete(user.id), model.antiforgeryToken, html``, m.adminUserDeleteSubmit)}
<p><a href="${links.user(user.id)}">${m.adminUserKeep}</a></p>`,
  };
}
