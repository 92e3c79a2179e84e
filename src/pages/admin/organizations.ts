import { html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, consoleNav, rolesText, when } from './console.ts';

/** An organization with its member count. */
export interface AdminOrganizationRow {
  readonly id: number;
  readonly name: string;
  readonly slug: string;
  readonly members: number;
  /** Epoch ms. */
  readonly createdAt: number;
}

export interface AdminOrganizationsPageData extends AdminPageBase {
  readonly organizations: readonly AdminOrganizationRow[];
}

export interface AdminOrganizationsPageModel extends AdminOrganizationsPageData {
  readonly links: AdminLinks;
}

/** Every organization, each a link to its members. */
export function adminOrganizationsPage(model: AdminOrganizationsPageModel): PageContent {
  const { links } = model;
  const rows = model.organizations.map(
    (organization) => html`<tr><th scope="row"><a href="${links.organization(organization.id)}">${organization.name}</a></th><td>${organization.slug}</td><td>${organization.members}</td><td>${when(organization.createdAt)}</td></tr>`,
  );
  const list =
    rows.length === 0
      ? html`<p>There is no organization yet.</p>`
      : html`<table class="admin-table">
<caption>Organizations</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Slug</th><th scope="col">Members</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
  return { title: 'Organizations', main: html`${consoleNav(links, model.sections, 'organizations')}
${list}` };
}

/** A member as the organization's page lists it. */
export interface AdminMemberRow {
  readonly userId: number;
  readonly email: string;
  readonly userName: string | null;
  /** Organization roles. */
  readonly roles: readonly string[];
  /** Epoch ms. */
  readonly joinedAt: number;
}

export interface AdminOrganizationPageData extends AdminPageBase {
  readonly organization: Omit<AdminOrganizationRow, 'members'>;
  readonly members: readonly AdminMemberRow[];
}

export interface AdminOrganizationPageModel extends AdminOrganizationPageData {
  readonly links: AdminLinks;
}

/** One organization: its slug and its members with their organization roles, each a link to the user. */
export function adminOrganizationPage(model: AdminOrganizationPageModel): PageContent {
  const { links, organization } = model;
  const rows = model.members.map(
    (member) => html`<tr><th scope="row"><a href="${links.user(member.userId)}">${member.email}</a></th><td>${member.userName ?? ''}</td><td>${rolesText(member.roles)}</td><td>${when(member.joinedAt)}</td></tr>`,
  );
  return {
    title: organization.name,
    main: html`${consoleNav(links, model.sections, 'organizations', { within: true })}
<dl class="admin-details"><dt>Slug</dt><dd>${organization.slug}</dd><dt>Created</dt><dd>${when(organization.createdAt)}</dd></dl>
<table class="admin-table">
<caption>Members of ${organization.name}</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">User name</th><th scope="col">Roles</th><th scope="col">Joined</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p><a href="${links.organizations}">Every organization</a></p>`,
  };
}
