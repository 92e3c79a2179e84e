import type { UserSummary } from '../../membership/user-administration.ts';
import { errorSummary, field, notice } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, consoleNav, rolesText } from './console.ts';

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
export function adminUsersPage(model: AdminUsersPageModel): PageContent {
  const { links } = model;
  return {
    title: 'Users',
    main: html`${consoleNav(links, model.sections, 'users')}
${notice(model.notice)}
${errorSummary(model.errors ?? {})}
<form method="get" action="${links.users}" role="search" novalidate>
${field({ name: 'q', label: 'Search by e-mail or user name', value: model.query, autocomplete: 'off', required: false }, model.errors ?? {})}
<button type="submit">Search</button>
</form>
<p id="users-count" role="status">${matchCount(model)}</p>
${model.users.length === 0 ? '' : usersTable(model)}
${pager(model)}`,
  };
}

function matchCount({ query, total }: AdminUsersPageModel): string {
  const users = total === 1 ? '1 user' : `${total} users`;
  if (query === '') return `${users} in all.`;
  return `${users} ${total === 1 ? 'matches' : 'match'} “${query}”.`;
}

function usersTable(model: AdminUsersPageModel): Html {
  const rows = model.users.map(
    (user) => html`<tr>
<th scope="row"><a href="${model.links.user(user.id)}">${user.email}</a></th>
<td>${user.userName ?? ''}</td>
<td>${rolesText(user.roles)}</td>
<td>${user.emailConfirmed ? 'Yes' : 'No'}</td>
<td>${user.lockedOut ? 'Locked' : 'Active'}</td>
</tr>`,
  );
  return html`<table class="admin-table">
<caption>Users, page ${model.page} of ${model.pageCount}</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">User name</th><th scope="col">Roles</th><th scope="col">E-mail confirmed</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

/** Previous and next page, the search kept. */
function pager(model: AdminUsersPageModel): Html {
  const { links, query, page, pageCount } = model;
  if (pageCount <= 1) return html``;
  const previous = page > 1 ? html`<a href="${links.usersPage(query, page - 1)}" rel="prev">Previous page</a> ` : '';
  const next = page < pageCount ? html`<a href="${links.usersPage(query, page + 1)}" rel="next">Next page</a>` : '';
  return html`<nav aria-label="Pages of users">${previous}${next}</nav>`;
}
