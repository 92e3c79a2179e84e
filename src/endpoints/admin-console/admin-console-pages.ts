import type { AdminMessages } from '../../i18n/admin-messages.ts';
import type { ListedSession } from '../../identity/user-sessions.ts';
import type { ApiKeyAdministration } from '../../membership/api-key-administration.ts';
import type { AuditTrail } from '../../membership/audit-trail.ts';
import type { SessionEnding } from '../../membership/session-ending.ts';
import type { SigningKeyAdministration } from '../../membership/signing-key-administration.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import { OrganizationStanding } from '../../organizations/organization-standing.ts';
import type { Organizations } from '../../organizations/organizations.ts';
import type { AdminSections, AuditFilterInput } from '../../pages/admin/console.ts';
import type { AdminMemberManagement } from '../../pages/admin/organizations.ts';
import type { AdminSessionView, AdminUserView } from '../../pages/admin/user.ts';
import type { FormErrors } from '../../pages/forms.ts';
import type { PageData, PageName, PageRendering } from '../../pages/rendering.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { AuditEvent, Organization, OrganizationMember, User } from '../../store/ports.ts';
import { existingUser } from '../admin/existing-user.ts';
import { CookieList } from '../cookies.ts';
import type { EndpointRequest, EndpointResponse } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { auditFilters } from './audit-filters.ts';
import type { NewApiKeyCookie } from './new-api-key-cookie.ts';

/** Users and events a page lists. */
const PAGE_SIZE = 50;

/**
 * What each page says after the form that sent the browser back to it (`?status=`): the key of
 * its text, which the page gets in the request's language.
 */
const NOTICES = {
  locked: 'adminNoticeLocked',
  unlocked: 'adminNoticeUnlocked',
  'role-added': 'adminNoticeRoleAdded',
  'role-removed': 'adminNoticeRoleRemoved',
  'sessions-ended': 'adminNoticeSessionsEnded',
  'confirmation-sent': 'adminNoticeConfirmationSent',
  'user-deleted': 'adminNoticeUserDeleted',
  'key-created': 'adminNoticeKeyCreated',
  'client-revoked': 'adminNoticeClientRevoked',
  'key-rotated': 'adminNoticeKeyRotated',
  'key-revoked': 'adminNoticeKeyRevoked',
  'member-roles-changed': 'adminNoticeMemberRolesChanged',
  'member-removed': 'adminNoticeMemberRemoved',
} as const satisfies Readonly<Record<string, Extract<keyof AdminMessages, `adminNotice${string}`>>>;

export type AdminNotice = keyof typeof NOTICES;

/** What the console reads and where it renders; a part is null where the service does not have it. */
export interface AdminConsolePagesOptions {
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'messages' | 'headersFor' | 'paths'>;
  readonly users: Pick<UserAdministration, 'search' | 'findById' | 'isLockedOut'>;
  readonly auditTrail: Pick<AuditTrail, 'page'>;
  readonly sessions: Pick<SessionEnding, 'list'> | null;
  readonly apiKeys: Pick<ApiKeyAdministration, 'list'> | null;
  readonly signingKeys: Pick<SigningKeyAdministration, 'list'> | null;
  readonly organizations: Pick<Organizations, 'list' | 'find' | 'members' | 'declaredRoles'> | null;
  readonly newKeys: NewApiKeyCookie;
}

/** What a page shows besides what it reads: the refusal of a form on it, and what that form sent. */
export interface AdminPageExtras {
  readonly errors?: FormErrors;
  readonly role?: string;
  readonly client?: string;
}

/**
 * The console's pages for a request: each reads through the administration use cases, the same
 * the admin API calls, and renders through the service's page options, so that an application's
 * renderers and layout apply to them as to the account pages.
 */
export class AdminConsolePages {
  readonly sections: AdminSections;

  constructor(private readonly options: AdminConsolePagesOptions) {
    const { sessions, apiKeys, signingKeys, organizations } = options;
    this.sections = Object.freeze({ sessions: sessions !== null, apiKeys: apiKeys !== null, signingKeys: signingKeys !== null, organizations: organizations !== null });
  }

  get paths() {
    return this.options.pages.paths.admin;
  }

  async home(request: Pick<EndpointRequest, 'headers'>): Promise<EndpointResponse> {
    const { users, organizations, apiKeys, signingKeys } = this.options;
    const [matching, organizationList, clients, keys] = await Promise.all([
      users.search({ query: '', limit: 0, offset: 0 }),
      organizations?.list() ?? null,
      apiKeys?.list() ?? null,
      signingKeys?.list() ?? null,
    ]);
    const counts = {
      users: matching.total,
      organizations: organizationList?.length ?? null,
      apiKeyClients: clients?.filter((client) => client.activeKeys > 0).length ?? null,
      signingKeys: keys?.length ?? null,
    };
    return this.page(request, 'adminHome', { sections: this.sections, counts });
  }

  /** The users matching `?q=`, page `?page=` (1 by default). */
  async users(request: EndpointRequest<unknown>): Promise<EndpointResponse> {
    const query = textParameter(request, 'q') ?? '';
    const pageText = textParameter(request, 'page') ?? '1';
    const base = { sections: this.sections, query, ...this.noticeOf(request) };
    if (query.length > 254 || !/^[1-9][0-9]{0,5}$/.test(pageText)) {
      const m = this.messages(request);
      const errors: FormErrors = query.length > 254 ? { q: [m.adminUsersSearchTooLong] } : { page: [m.adminUsersPageInvalid] };
      return this.page(request, 'adminUsers', { ...base, users: [], page: 1, pageCount: 1, total: 0, errors }, 400);
    }
    const page = Number(pageText);
    const found = await this.options.users.search({ query, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
    const pageCount = Math.max(1, Math.ceil(found.total / PAGE_SIZE));
    return this.page(request, 'adminUsers', { ...base, users: found.users, page, pageCount, total: found.total });
  }

  /** One user's page, again with the refusal of a form on it when there is one (at that refusal's status, set by the host). */
  async user(request: EndpointRequest<unknown>, extras: AdminPageExtras = {}): Promise<EndpointResponse> {
    const user = await existingUser(this.options.users, idOf(request));
    const sessions = this.options.sessions === null ? null : (await this.options.sessions.list(user.id)).map(sessionView);
    return this.page(request, 'adminUser', { sections: this.sections, antiforgeryToken: request.antiforgeryToken(), user: this.userView(user), sessions, ...this.noticeOf(request), ...extras });
  }

  /** The step before deleting a user. */
  async userDelete(request: EndpointRequest<unknown>, errors?: FormErrors): Promise<EndpointResponse> {
    const { id, email } = await existingUser(this.options.users, idOf(request));
    return this.page(request, 'adminUserDelete', { sections: this.sections, antiforgeryToken: request.antiforgeryToken(), user: { id, email }, ...(errors ? { errors } : {}) });
  }

  /** The events matching the filters of the query, below `?before=`; 400 with the form's errors for a filter that is not one. */
  async audit(request: EndpointRequest<unknown>): Promise<EndpointResponse> {
    const input: AuditFilterInput = {
      type: textParameter(request, 'type'),
      userId: textParameter(request, 'userId'),
      from: textParameter(request, 'from'),
      to: textParameter(request, 'to'),
    };
    const beforeText = textParameter(request, 'before');
    const before = beforeText === undefined ? null : Number(beforeText);
    const base = { sections: this.sections, filters: input, before };
    const checked = auditFilters(input, this.messages(request));
    if ('errors' in checked) return this.page(request, 'adminAudit', { ...base, events: [], next: null, errors: checked.errors }, 400);
    const page = await this.options.auditTrail.page({ limit: PAGE_SIZE, before: before ?? undefined, ...checked.filters });
    return this.page(request, 'adminAudit', { ...base, events: page.events.map(eventView), next: page.next });
  }

  /** The API-key clients, and the key the form just made, once: its cookie is cleared whatever it held. */
  async apiKeys(request: EndpointRequest<unknown>, extras: AdminPageExtras = {}): Promise<EndpointResponse> {
    const { apiKeys, newKeys } = this.options;
    if (apiKeys === null) throw GatehouseError.notFound();
    const answer = new CookieList();
    const created = newKeys.read(request, String(signedInUserId(request)));
    if (newKeys.present(request)) newKeys.clear(answer);
    const clients = await apiKeys.list();
    const data = { sections: this.sections, antiforgeryToken: request.antiforgeryToken(), clients, created, ...this.noticeOf(request), ...extras };
    return { ...this.page(request, 'adminApiKeys', data), cookies: answer.cookies };
  }

  async signingKeys(request: EndpointRequest<unknown>, errors?: FormErrors): Promise<EndpointResponse> {
    const { signingKeys } = this.options;
    if (signingKeys === null) throw GatehouseError.notFound();
    const keys = await signingKeys.list();
    return this.page(request, 'adminSigningKeys', { sections: this.sections, antiforgeryToken: request.antiforgeryToken(), keys, ...this.noticeOf(request), ...(errors ? { errors } : {}) });
  }

  async organizations(request: Pick<EndpointRequest, 'headers'>): Promise<EndpointResponse> {
    const organizations = this.options.organizations;
    if (organizations === null) throw GatehouseError.notFound();
    return this.page(request, 'adminOrganizations', { sections: this.sections, organizations: await organizations.list() });
  }

  /**
   * An organization's members; 404 for an unknown one. An admin sees every organization
   * (`OrganizationStanding.seesAll`); the forms that change its members are there for one who
   * manages it, again with the refusal of one of them when there is one.
   */
  async organization(request: EndpointRequest<unknown>, extras: Pick<AdminPageExtras, 'errors'> = {}): Promise<EndpointResponse> {
    const organizations = this.options.organizations;
    if (organizations === null) throw GatehouseError.notFound();
    const id = Number(idOf(request));
    const organization = await organizations.find(id);
    if (organization === null) throw GatehouseError.notFound((m) => m.errorOrganizationUnknown);
    const userId = signedInUserId(request);
    const members = await organizations.members({ userId, ip: request.ip }, id);
    const management: AdminMemberManagement | null = (await this.manages(userId, organization, members))
      ? { antiforgeryToken: request.antiforgeryToken(), roles: organizations.declaredRoles }
      : null;
    return this.page(request, 'adminOrganization', { sections: this.sections, organization, members, management, ...this.noticeOf(request), ...extras });
  }

  /** After a form: 303 to `path`, with what the page says there. */
  back(path: string, notice: AdminNotice): EndpointResponse {
    return seeOther(`${path}?status=${notice}`, { headers: NO_STORE });
  }

  /** The texts of the request's language: for the words the console hands its pages (a notice, a filter's error). */
  private messages(request: Pick<EndpointRequest, 'headers'>): AdminMessages {
    const { pages } = this.options;
    return pages.messages(this.language(request));
  }

  /** The page in the language of the request. */
  private page<Name extends PageName>(request: Pick<EndpointRequest, 'headers'>, name: Name, data: PageData[Name], status = 200): EndpointResponse {
    const { pages } = this.options;
    return pageResponse(pages, pages.render(name, data, this.language(request)), status);
  }

  /** `Accept-Language`'s choice, or the application's fixed language. */
  private language(request: Pick<EndpointRequest, 'headers'>): string {
    return this.options.pages.language(request.headers['accept-language']);
  }

  /** The notice `?status=` names, in the request's language; none for another. */
  private noticeOf(request: Pick<EndpointRequest, 'query' | 'headers'>): { notice?: string } {
    const status = textParameter(request, 'status');
    return status !== undefined && Object.hasOwn(NOTICES, status) ? { notice: this.messages(request)[NOTICES[status as AdminNotice]] } : {};
  }

  /**
   * Whether the admin may change the organization's members: the standing the use case checks
   * (`SuperAdmin`, or `OrgAdmin` or `OrgOwner` of it), so that a form is shown only where it works.
   */
  private async manages(userId: number, organization: Organization, members: readonly OrganizationMember[]): Promise<boolean> {
    const admin = await this.options.users.findById(userId);
    if (admin === null) return false;
    const own = members.find((member) => member.userId === userId);
    return new OrganizationStanding(admin, own === undefined ? null : { organization, roles: own.roles, joinedAt: own.joinedAt }).manages;
  }

  private userView(user: User): AdminUserView {
    // An automatic lockout shows its end; an admin's lock has none.
    const lockedOutUntil = !user.lockedByAdmin && this.options.users.isLockedOut(user) ? user.lockoutEnd : null;
    const { id, email, userName, emailConfirmed, roles, lockedByAdmin, twoFactorEnabled, createdAt } = user;
    return { id, email, userName, emailConfirmed, roles, lockedByAdmin, lockedOutUntil, twoFactorEnabled, createdAt };
  }
}

/** A query parameter as text: the first of a repeated one. */
function textParameter(request: Pick<EndpointRequest, 'query'>, name: string): string | undefined {
  const value = request.query[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The `:id` of the path. A refused form's page is rendered even when the path failed its check
 * (`/admin/users/abc/lock`): such an id names no user.
 */
function idOf(request: Pick<EndpointRequest, 'params'>): string {
  const id = request.params.id ?? '';
  if (!/^[1-9][0-9]{0,14}$/.test(id)) throw GatehouseError.notFound();
  return id;
}

function sessionView({ kind, createdAt, lastSeenAt, userAgent, ip }: ListedSession): AdminSessionView {
  return { kind, createdAt, lastSeenAt, userAgent, ip };
}

function eventView(event: AuditEvent) {
  return { ...event, detail: event.detail === null ? null : JSON.stringify(event.detail) };
}
