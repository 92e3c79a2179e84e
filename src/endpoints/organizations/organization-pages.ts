import type { UserManager } from '../../identity/user-manager.ts';
import type { Phrase } from '../../i18n/phrase.ts';
import { ORG_ADMIN, ORG_OWNER, ORGANIZATION_CLAIM } from '../../organizations/organization-roles.ts';
import type { CallerOrganization, OrganizationCaller, Organizations } from '../../organizations/organizations.ts';
import type { FormErrors } from '../../pages/forms.ts';
import type { InviteInput, OrganizationManagementView, OrganizationView } from '../../pages/organizations.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { EndpointRequest, EndpointResponse } from '../endpoint.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { NO_STORE } from '../no-store.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import type { OwnSessionSources } from '../sessions/own-session.ts';
import { signedInUser } from '../signed-in-user.ts';
import { callerOf } from './organization-endpoints.ts';

/** What the organizations page says after the form that sent the browser back to it (`?status=`). */
const ORGANIZATION_NOTICES = {
  'organization-switched': (m) => m.organizationsSwitchedNotice,
  'organization-cleared': (m) => m.organizationsClearedNotice,
  'invitation-sent': (m) => m.organizationsInvitationSentNotice,
  'invitation-revoked': (m) => m.organizationsInvitationRevokedNotice,
  'member-removed': (m) => m.organizationsMemberRemovedNotice,
  'invitation-accepted': (m) => m.organizationsInvitationAcceptedNotice,
} as const satisfies Record<string, Phrase>;

export type OrganizationNotice = keyof typeof ORGANIZATION_NOTICES;

export type OrganizationPagePaths = Pick<MembershipPaths, 'organizations'>;

export interface OrganizationPagesOptions extends Pick<OwnSessionSources, 'cookies' | 'cookieSessions'> {
  readonly pages: Pick<PageRendering, 'headersFor' | 'render' | 'language' | 'paths'>;
  readonly paths: OrganizationPagePaths;
  readonly organizations: Pick<Organizations, 'listForUser' | 'members' | 'invitations' | 'preview' | 'declaredRoles'>;
  /** The signed-in visitor of an invitation, named on its page. */
  readonly users: Pick<UserManager, 'findById'>;
}

/** What the organizations page shows besides the user's organizations. */
export interface OrganizationsExtras {
  readonly notice?: string;
  readonly errors?: FormErrors;
  readonly invite?: InviteInput;
}

/**
 * The organization pages for a browser: the user's organizations (`GET /account/organizations`,
 * and again with the errors of a form on it that was refused), and an invitation's page.
 */
export class OrganizationPages {
  constructor(private readonly options: OrganizationPagesOptions) {}

  /** The language of the request's pages, and of the mails it causes (an invitation is in the inviter's). */
  language(request: Pick<EndpointRequest, 'headers'>): string {
    return this.options.pages.language(request.headers['accept-language']);
  }

  /** Where a signed-in browser accepts the invitation: the page with the Accept form. */
  acceptPage(code: string): string {
    return this.options.pages.paths.invitationAccept(code);
  }

  /** The signed-in user's organizations, with members and invitations of those the user manages. */
  async list(request: EndpointRequest<unknown>, extras: OrganizationsExtras = {}): Promise<EndpointResponse> {
    const caller = callerOf(request);
    const active = request.user.findFirst(ORGANIZATION_CLAIM)?.value;
    const listed = await this.options.organizations.listForUser(caller.userId);
    const organizations = await Promise.all(listed.map((organization) => this.view(caller, organization, String(organization.id) === active)));
    const { pages } = this.options;
    return pageResponse(pages, pages.render('organizations', { antiforgeryToken: request.antiforgeryToken(), organizations, ...extras }, pages.language(request.headers['accept-language'])));
  }

  /** After a form on the page: 303 back to it, with what to say there. */
  backToList(notice: OrganizationNotice): EndpointResponse {
    return seeOther(`${this.options.paths.organizations}?status=${notice}`, { headers: NO_STORE });
  }

  /** The notice a `?status=` names, in the request's language; none for another. */
  noticeOf(request: Pick<EndpointRequest, 'query' | 'messages'>): string | undefined {
    const { status } = request.query;
    return typeof status === 'string' && Object.hasOwn(ORGANIZATION_NOTICES, status) ? ORGANIZATION_NOTICES[status as OrganizationNotice](request.messages()) : undefined;
  }

  /**
   * An invitation's page: for a signed-in caller (`signedIn`) with the Accept form, and the
   * refusal of that form if any; else with "Sign in" and "Create an account". An unknown, used,
   * revoked or expired code is the use case's 404, which a browser sees as the 404 page.
   */
  async invitation(request: EndpointRequest<unknown>, code: string, signedIn: boolean, errors?: FormErrors): Promise<EndpointResponse> {
    const { organization, email, roles } = await this.options.organizations.preview(code);
    const { users, pages } = this.options;
    const visitor = signedIn ? { email: (await signedInUser(users, request)).email, antiforgeryToken: request.antiforgeryToken() } : null;
    return pageResponse(pages, pages.render('invitation', { code, organizationName: organization.name, email, roles, visitor, ...(errors ? { errors } : {}) }, pages.language(request.headers['accept-language'])));
  }

  /**
   * Whether the browser holds a valid cookie session, on the invitation's route, which anyone may
   * call and which therefore reads no credentials: it only decides which page the browser gets,
   * never what it may do.
   */
  async holdsSession(request: Pick<EndpointRequest, 'headers'>): Promise<boolean> {
    const token = this.options.cookies.presentedSession(request);
    return token !== null && (await this.options.cookieSessions.current(token)).valid;
  }

  private async view(caller: OrganizationCaller, organization: CallerOrganization, active: boolean): Promise<OrganizationView> {
    const { id, name, roles } = organization;
    // The stored membership decides, as the use case's standing does; a global role is no member's.
    const manages = roles.includes(ORG_ADMIN) || roles.includes(ORG_OWNER);
    return { id, name, roles, active, management: manages ? await this.management(caller, organization) : null };
  }

  private async management(caller: OrganizationCaller, { id, roles }: CallerOrganization): Promise<OrganizationManagementView> {
    const { organizations } = this.options;
    const [members, invitations] = await Promise.all([organizations.members(caller, id), organizations.invitations(caller, id)]);
    return {
      members: members.map(({ userId, email, userName, roles: memberRoles }) => ({ userId, email, userName, roles: memberRoles, self: userId === caller.userId })),
      invitations: invitations.map(({ id: invitationId, email, roles: invited, expiresAt }) => ({ id: invitationId, email, roles: invited, expiresAt })),
      invitableRoles: organizations.declaredRoles.filter((role) => role !== ORG_OWNER || roles.includes(ORG_OWNER)),
    };
  }
}
