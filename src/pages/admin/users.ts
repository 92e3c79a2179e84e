import type { AdminMessages } from '../../i18n/admin-messages.ts';
import type { UserSummary } from '../../membership/user-administration.ts';
import { errorSummary, field, notice } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, consoleNav, rolesText } from './console.ts';

/** A user as the list shows it: as the admin API lists it. */
export type AdminUserRow = UserSummary;

export interface AdminUsersPageData extends AdminPageBase {
  /** The search as typed; empty for every user. */
  readonly query: string;
  readonly users: readonly AdminUserRow[];
  /** 1 is the first. */
  readonly page: number;
  readonly pageCount: number;
  /** How many users match, on every page. */
  readonly total: number;
}

export interface AdminUsersPageModel extends AdminUsersPageData {
  readonly links: AdminLinks;
}

/** The users, searched by e-mail or user name and paged, each a link to its own page. */
export function adminUsersPage(model: AdminUsersPageModel, { messages: m }: PageKit): PageContent {
  const { links, query, total } = model;
  return {
    title: m.adminUsersTitle,
    main: html`${consoleNav(links, model.sections, 'users', m)}
${notice(model.notice)}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
<form method="get" action="${links.users}" role="search" novalidate>
${field({ name: 'q', label: m.adminUsersSearchLabel, value: query, autocomplete: 'off', required: false }, model.errors ?? {})}
<button type="submit">${m.adminUsersSearchSubmit}</button>
</form>
<p id="users-count" role="status">${m.adminUsersCount({ total, query })}</p>
${model.users.length === 0 ? '' : usersTable(model, m)}
${pager(model, m)}`,
  };
}

function usersTable(model: AdminUsersPageModel, m: AdminMessages): Html {
  const rows = model.users.map(
    (user) => html`<tr>
<th scope="row"><a href="${model.links.user(user.id)}">${user.email}</a></th>
<td>${user.userName ?? ''}</td>
<td>${rolesText(user.roles, m)}</td>
<td>${user.emailConfirmed ? m.adminYes : m.adminNo}</td>
<td>${user.lockedOut ? m.adminUsersLocked : m.adminActive}</td>
</tr>`,
  );
  const head = [m.adminEmail, m.adminUserName, m.adminRoles, m.adminEmailConfirmed, m.adminStatus];
  return adminTable(m.adminUsersCaption({ page: model.page, pageCount: model.pageCount }), head, rows);
}

/** Previous and next page, the search kept. */
function pager(model: AdminUsersPageModel, m: AdminMessages): Html {
  const { links, query, page, pageCount } = model;
  if (pageCount <= 1) return html``;
  const previous = page > 1 ? html`<a href="${links.usersPage(query, page - 1)}" rel="prev">${m.adminUsersPrevious}</a> ` : '';
  const next = page < pageCount ? html`<a href="${links.usersPage(query, page + 1)}" rel="next">${m.adminUsersNext}</a>` : '';
  return html`<nav aria-label="${m.adminUsersPagesLabel}">${previous}${next}</nav>`;
}
