import { errorSummary, type FormErrors, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
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
export function invitationPage(model: InvitationPageModel): PageContent {
  const { links, visitor } = model;
  const errors = model.errors ?? {};
  const details = html`<dl class="gh-details">
<dt>Organization</dt><dd id="invitation-organization">${model.organizationName}</dd>
<dt>Invited address</dt><dd id="invitation-email">${model.email}</dd>
<dt>Roles</dt><dd id="invitation-roles">${model.roles.length > 0 ? model.roles.join(', ') : 'none'}</dd>
</dl>`;
  const next =
    visitor === null
      ? html`<p>To accept, sign in with ${model.email}. No account with that address yet? Create one: confirming the address brings you into the organization.</p>
<nav aria-label="Accepting"><a href="${links.login}">Sign in</a> <a href="${links.register}">Create an account</a></nav>`
      : html`<p id="invitation-visitor">You are signed in as ${visitor.email}.</p>
${postForm(links.accept, visitor.antiforgeryToken, html``, 'Accept')}
${Object.keys(errors).length > 0 ? html`<p><a href="${links.login}">Sign in with ${model.email}</a></p>` : ''}`;
  return {
    title: 'Invitation to an organization',
    main: html`${errorSummary(errors)}
<p>You are invited to join an organization as one of its members.</p>
${details}
${next}`,
  };
}
