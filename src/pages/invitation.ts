import { errorSummary, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import { type AccountPaths, withQuery } from './paths.ts';

/** The signed-in visitor of an invitation's page: who they are, and the Accept form's token. */
export interface InvitationVisitor {
  readonly email: string;
  readonly antiforgeryToken: string;
}

export interface InvitationPageData {
  /** The invitation's code, as its link carries it: the page's links lead back to it. */
  readonly code: string;
  readonly organizationName: string;
  /** The address invited: only a user with this confirmed address may accept. */
  readonly email: string;
  readonly roles: readonly string[];
  /** Null for a visitor who is not signed in: they get "Sign in" and "Create an account" instead of "Accept". */
  readonly visitor: InvitationVisitor | null;
  /** The refusal of the Accept form (another address), shown with it. */
  readonly errors?: FormErrors;
}

export interface InvitationPageLinks {
  readonly accept: string;
  /** The login page, coming back to this invitation. */
  readonly login: string;
  readonly register: string;
}

export interface InvitationPageModel extends InvitationPageData {
  readonly links: InvitationPageLinks;
}

export function invitationLinks({ code }: InvitationPageData, paths: AccountPaths): InvitationPageLinks {
  return { accept: paths.invitationAccept(code), login: withQuery(paths.login, 'ReturnUrl', paths.invitation(code)), register: paths.register };
}

/** An invitation's link: the organization, the address and the roles, and how to accept. */
export function invitationPage(model: InvitationPageModel, { messages: m }: PageKit): PageContent {
  const { links, visitor } = model;
  const errors = model.errors ?? {};
  const details = html`<dl class="gh-details">
<dt>${m.invitationOrganization}</dt><dd id="invitation-organization">${model.organizationName}</dd>
<dt>${m.invitationAddress}</dt><dd id="invitation-email">${model.email}</dd>
<dt>${m.profileRoles}</dt><dd id="invitation-roles">${model.roles.length > 0 ? model.roles.join(', ') : m.profileNone}</dd>
</dl>`;
  const next =
    visitor === null
      ? html`<p>${m.invitationSignInFirst({ email: model.email })}</p>
<nav aria-label="${m.invitationAcceptingNav}"><a href="${links.login}">${m.signInLink}</a> <a href="${links.register}">${m.loginCreateAccount}</a></nav>`
      : html`<p id="invitation-visitor">${m.invitationSignedInAs({ email: visitor.email })}</p>
${postForm(links.accept, visitor.antiforgeryToken, html``, m.invitationAccept)}
${Object.keys(errors).length > 0 ? html`<p><a href="${links.login}">${m.invitationSignInWith({ email: model.email })}</a></p>` : ''}`;
  return {
    title: m.invitationTitle,
    main: html`${errorSummary(errors, m.formErrorSummaryHeading)}
<p>${m.invitationIntro}</p>
${details}
${next}`,
  };
}
