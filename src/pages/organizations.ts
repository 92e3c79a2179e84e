import { ORG_MEMBER } from '../organizations/organization-roles.ts';
import { antiforgeryField, errorSummary, field, type FormErrors, kindClass, notice, postForm } from './forms.ts';
import { type Html, html } from './html.ts';
import type { Messages } from '../i18n/messages.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

/** A member of an organization the user manages. */
export interface OrganizationMemberView {
  readonly userId: number;
  readonly email: string;
  readonly userName: string | null;
  readonly roles: readonly string[];
  /** The signed-in user's own row: removing it is leaving. */
  readonly self: boolean;
}

/** A pending invitation of an organization the user manages. */
export interface OrganizationInvitationView {
  readonly id: number;
  readonly email: string;
  readonly roles: readonly string[];
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** What an `OrgAdmin` or `OrgOwner` of an organization sees of it besides its name. */
export interface OrganizationManagementView {
  readonly members: readonly OrganizationMemberView[];
  readonly invitations: readonly OrganizationInvitationView[];
  /** The roles the invite form offers: the declared ones, `OrgOwner` only to an `OrgOwner`. */
  readonly invitableRoles: readonly string[];
}

/** One of the user's organizations. */
export interface OrganizationView {
  readonly id: number;
  readonly name: string;
  /** The user's roles in it. */
  readonly roles: readonly string[];
  /** The one this browser's session acts in. */
  readonly active: boolean;
  /** Null where the user does not manage it. */
  readonly management: OrganizationManagementView | null;
}

/** An invite form that was refused, written back into its organization's form. */
export interface InviteInput {
  readonly organizationId: number;
  readonly email: string;
  readonly roles: readonly string[];
}

export interface OrganizationsPageData {
  readonly antiforgeryToken: string;
  readonly organizations: readonly OrganizationView[];
  readonly notice?: string;
  /** The refusal of the form that brought the page back. */
  readonly errors?: FormErrors;
  readonly invite?: InviteInput;
}

export interface OrganizationsPageLinks {
  /** Where every switch posts, `organizationId` empty for none. */
  readonly switchActive: string;
  readonly profile: string;
  invite(organizationId: number): string;
  removeMember(organizationId: number, userId: number): string;
  revokeInvitation(organizationId: number, invitationId: number): string;
}

export interface OrganizationsPageModel extends OrganizationsPageData {
  readonly links: OrganizationsPageLinks;
}

export function organizationsLinks(_data: OrganizationsPageData, paths: AccountPaths): OrganizationsPageLinks {
  return {
    switchActive: paths.organizationsSwitch,
    profile: paths.profile,
    invite: paths.organizationInvite,
    removeMember: paths.organizationMemberRemove,
    revokeInvitation: paths.organizationInvitationRevoke,
  };
}

/**
 * The signed-in user's organizations: which one is active and a switch to each other one (and to
 * none); for each the user manages, its members (each with "Remove"), its pending invitations
 * (each with "Revoke") and the invite form. Plain forms with the antiforgery field, no script.
 */
export function organizationsPage(model: OrganizationsPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const list =
    model.organizations.length === 0
      ? html`<p id="organizations-none">${m.organizationsNone}</p>`
      : model.organizations.map((organization) => organizationSection(organization, model, m));
  return {
    title: m.organizationsTitle,
    main: html`${notice(model.notice)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${activeSection(model, m)}
${list}
<nav aria-label="${m.organizationsAccountNav}"><a href="${model.links.profile}">${m.errorYourAccount}</a></nav>`,
  };
}

/** Which organization is active, and the form that makes none active. */
function activeSection(model: OrganizationsPageModel, m: Messages): Html {
  const active = model.organizations.find((organization) => organization.active);
  const state =
    active === undefined
      ? html`<p id="active-organization">${m.organizationsNoneActive}</p>`
      : html`<p id="active-organization">${m.organizationsActiveIn} <strong>${active.name}</strong>${m.organizationsRolesApply}</p>
${switchForm(model, '', m.organizationsClearActive)}`;
  return html`<section aria-labelledby="active-heading"><h2 id="active-heading">${m.organizationsActiveHeading}</h2>
${state}</section>`;
}

function organizationSection(organization: OrganizationView, model: OrganizationsPageModel, m: Messages): Html {
  const prefix = `organization-${organization.id}`;
  return html`<section id="${prefix}" class="organization" aria-labelledby="${prefix}-heading">
<h2 id="${prefix}-heading">${organization.name}</h2>
<p>${m.organizationsYourRoles({ roles: rolesText(organization.roles, m) })}</p>
${organization.active ? html`<p class="active"><strong>${m.organizationsActive}</strong></p>` : switchForm(model, String(organization.id), m.organizationsSwitchTo({ name: organization.name }))}
${organization.management === null ? '' : managementPart(organization, organization.management, model, m)}
</section>`;
}

/** The switch's form: `organizationId` is the organization's id, or empty for none. */
function switchForm(model: OrganizationsPageModel, organizationId: string, submit: string): Html {
  return postForm(model.links.switchActive, model.antiforgeryToken, html`<input type="hidden" name="organizationId" value="${organizationId}">`, submit, 'secondary');
}

function managementPart(organization: OrganizationView, management: OrganizationManagementView, model: OrganizationsPageModel, m: Messages): Html {
  const prefix = `organization-${organization.id}`;
  const { links, antiforgeryToken } = model;
  const members = management.members.map(
    (member) => html`<li class="member"><span class="gh-row-text"><span class="member-email">${member.email}</span>${member.userName ? html` (${member.userName})` : ''}${member.self ? m.organizationsYou : ''}: ${rolesText(member.roles, m)}</span>
${buttonForm(links.removeMember(organization.id, member.userId), antiforgeryToken, m.organizationsRemove, m.organizationsRemoveMember({ email: member.email }))}</li>`,
  );
  const invitations =
    management.invitations.length === 0
      ? html`<p>${m.organizationsNoInvitations}</p>`
      : html`<ul class="gh-rows" aria-labelledby="${prefix}-invitations-heading">${management.invitations.map(
          (invitation) => html`<li class="invitation"><span class="gh-row-text"><span class="invitation-email">${invitation.email}</span>: ${rolesText(invitation.roles, m)}; ${m.organizationsLinkUntil({ when: when(invitation.expiresAt) })}</span>
${buttonForm(links.revokeInvitation(organization.id, invitation.id), antiforgeryToken, m.organizationsRevoke, m.organizationsRevokeInvitation({ email: invitation.email }))}</li>`,
        )}</ul>`;
  return html`<h3 id="${prefix}-members-heading">${m.organizationsMembers}</h3>
<ul class="gh-rows" aria-labelledby="${prefix}-members-heading">${members}</ul>
<h3 id="${prefix}-invitations-heading">${m.organizationsPending}</h3>
${invitations}
<h3 id="${prefix}-invite-heading">${m.organizationsInviteHeading}</h3>
${inviteForm(organization, management, model, m)}`;
}

/** E-mail and roles; a refused invitation comes back into its own organization's form with its errors. */
function inviteForm(organization: OrganizationView, management: OrganizationManagementView, model: OrganizationsPageModel, m: Messages): Html {
  const prefix = `organization-${organization.id}`;
  const input = model.invite?.organizationId === organization.id ? model.invite : undefined;
  const errors = input === undefined ? {} : (model.errors ?? {});
  // A fresh form offers the plain member role; a refused one keeps what was ticked.
  const ticked = input?.roles ?? [ORG_MEMBER];
  const roleErrors = errors.roles ?? [];
  const rolesErrorId = `${prefix}-roles-error`;
  const checkboxes = management.invitableRoles.map((role) => {
    const id = `${prefix}-role-${role}`;
    return html`<p class="check"><input id="${id}" name="roles" type="checkbox" value="${role}"${ticked.includes(role) ? html` checked` : ''}> <label for="${id}">${role}</label></p>`;
  });
  return html`<form method="post" action="${model.links.invite(organization.id)}" novalidate aria-labelledby="${prefix}-invite-heading">
${antiforgeryField(model.antiforgeryToken)}
${field({ name: 'email', id: `${prefix}-invite-email`, label: m.organizationsInviteEmail, type: 'email', value: input?.email, autocomplete: 'off' }, errors)}
<fieldset${roleErrors.length > 0 ? html` aria-describedby="${rolesErrorId}"` : ''}><legend>${m.organizationsRoles}</legend>
${checkboxes}
${roleErrors.length > 0 ? html`<p id="${rolesErrorId}" class="error">${roleErrors.join(' ')}</p>` : ''}
</fieldset>
<button type="submit">${m.organizationsInviteSubmit}</button>
</form>`;
}

/** A form of one button that removes: its visible word, and a name that says which row it acts on. */
function buttonForm(action: string, antiforgeryToken: string, word: string, name: string): Html {
  return html`<form method="post" action="${action}"${kindClass('danger')}>
${antiforgeryField(antiforgeryToken)}
<button type="submit" aria-label="${name}">${word}</button>
</form>`;
}

function rolesText(roles: readonly string[], m: Messages): string {
  return roles.length > 0 ? roles.join(', ') : m.organizationsNoRoles;
}

/** A time the way the pages write it: minutes in UTC. */
function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
