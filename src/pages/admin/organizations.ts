import type { AdminMessages } from '../../i18n/admin-messages.ts';
import { antiforgeryField, errorSummary, notice } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, buttonForm, consoleNav, rolesText, when } from './console.ts';

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
export function adminOrganizationsPage(model: AdminOrganizationsPageModel, { messages: m }: PageKit): PageContent {
  const { links } = model;
  const rows = model.organizations.map(
    (organization) => html`<tr><th scope="row"><a href="${links.organization(organization.id)}">${organization.name}</a></th><td>${organization.slug}</td><td>${organization.members}</td><td>${when(organization.createdAt)}</td></tr>`,
  );
  const list =
    rows.length === 0
      ? html`<p>${m.adminOrganizationsNone}</p>`
      : adminTable(m.adminOrganizationsCaption, [m.adminOrganizationsName, m.adminOrganizationsSlug, m.adminOrganizationsMembers, m.adminCreated], rows);
  return { title: m.adminOrganizationsTitle, main: html`${consoleNav(links, model.sections, 'organizations', m)}
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

/** What an admin who manages the organization (`SuperAdmin`, or an `OrgAdmin` of it) gets: the forms that change its members. */
export interface AdminMemberManagement {
  readonly antiforgeryToken: string;
  /** The organization roles the roles form offers: the declared ones. */
  readonly roles: readonly string[];
}

export interface AdminOrganizationPageData extends AdminPageBase {
  readonly organization: Omit<AdminOrganizationRow, 'members'>;
  readonly members: readonly AdminMemberRow[];
  /** Null for an admin who only sees the organization: the members are then read-only. */
  readonly management: AdminMemberManagement | null;
}

export interface AdminOrganizationPageModel extends AdminOrganizationPageData {
  readonly links: AdminLinks;
}

/**
 * One organization: its slug and its members with their organization roles, each a link to the
 * user; for an admin who manages it, each member's roles as a form and a "Remove" button.
 */
export function adminOrganizationPage(model: AdminOrganizationPageModel, { messages: m }: PageKit): PageContent {
  const { links, organization, management } = model;
  const rows = model.members.map(
    (member) => html`<tr><th scope="row"><a href="${links.user(member.userId)}">${member.email}</a></th><td>${member.userName ?? ''}</td>
<td>${management === null ? rolesText(member.roles, m) : rolesForm(model, management, member, m)}</td><td>${when(member.joinedAt)}</td>${management === null ? '' : html`
<td>${buttonForm(links.organizationMemberRemove(organization.id, member.userId), management.antiforgeryToken, m.adminRemove, m.adminOrganizationRemoveMember({ email: member.email }))}</td>`}</tr>`,
  );
  const head = [m.adminEmail, m.adminUserName, m.adminRoles, m.adminOrganizationJoined, ...(management === null ? [] : [m.adminRemove])];
  return {
    title: organization.name,
    main: html`${consoleNav(links, model.sections, 'organizations', m, { within: true })}
${notice(model.notice)}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
<dl class="admin-details"><dt>${m.adminOrganizationsSlug}</dt><dd>${organization.slug}</dd><dt>${m.adminCreated}</dt><dd>${when(organization.createdAt)}</dd></dl>
${adminTable(m.adminOrganizationMembersCaption({ organization: organization.name }), head, rows)}
<p><a href="${links.organizations}">${m.adminOrganizationEvery}</a></p>`,
  };
}

/**
 * A member's roles as boxes to tick, theirs ticked, and the button that replaces them. A role the
 * member holds that is no longer declared is offered too, so that the form shows what they hold.
 */
function rolesForm({ links, organization }: AdminOrganizationPageModel, management: AdminMemberManagement, member: AdminMemberRow, m: AdminMessages): Html {
  const prefix = `member-${member.userId}`;
  const offered = [...new Set([...management.roles, ...member.roles])];
  const boxes = offered.map((role) => {
    const id = `${prefix}-role-${role}`;
    return html`<p class="check"><input id="${id}" name="roles" type="checkbox" value="${role}"${member.roles.includes(role) ? html` checked` : ''}> <label for="${id}">${role}</label></p>`;
  });
  return html`<form method="post" action="${links.organizationMemberRoles(organization.id, member.userId)}">
${antiforgeryField(management.antiforgeryToken)}
<div role="group" aria-label="${m.adminOrganizationRolesOf({ email: member.email })}">${boxes}</div>
<button type="submit" aria-label="${m.adminOrganizationChangeRolesOf({ email: member.email })}">${m.adminOrganizationChangeRoles}</button>
</form>`;
}
