import type { ListedSession } from '../../identity/user-sessions.ts';
import type { ApiKeyAdministration } from '../../membership/api-key-administration.ts';
import type { AuditTrail } from '../../membership/audit-trail.ts';
import type { SessionEnding } from '../../membership/session-ending.ts';
import type { SigningKeyAdministration } from '../../membership/signing-key-administration.ts';
import type { UserAdministration } from '../../membership/user-administration.ts';
import type { Organizations } from '../../organizations/organizations.ts';
import type { AdminSections, AuditFilterInput } from '../../pages/admin/console.ts';
import type { AdminSessionView, AdminUserView } from '../../pages/admin/user.ts';
import type { FormErrors } from '../../pages/forms.ts';
import type { PageData, PageName, PageRendering } from '../../pages/rendering.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { AuditEvent, User } from '../../store/ports.ts';
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

/** What each page says after the form that sent the browser back to it (`?status=`). */
const NOTICES = {
  locked: 'The account is locked: every session of it ended.',
  unlocked: 'The account is unlocked: its owner may sign in again.',
  'role-added': 'The role is added.',
  'role-removed': 'The role is removed.',
  'sessions-ended': 'Every session of the account ended.',
  'confirmation-sent': 'A new confirmation mail is on its way.',
  'user-deleted': 'The account is deleted.',
  'key-created': 'The key is made.',
  'client-revoked': 'Every key of the client is revoked.',
  'key-rotated': 'A new current signing key is added.',
  'key-revoked': 'The signing key is revoked: the tokens it signed are refused.',
} as const;

export type AdminNotice = keyof typeof NOTICES;

/** What the console reads and where it renders; a part is null where the service does not have it. */
export interface AdminConsolePagesOptions {
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor' | 'paths'>;
  readonly users: Pick<UserAdministration, 'search' | 'findById' | 'isLockedOut'>;
  readonly auditTrail: Pick<AuditTrail, 'page'>;
  readonly sessions: Pick<SessionEnding, 'list'> | null;
  readonly apiKeys: Pick<ApiKeyAdministration, 'list'> | null;
  readonly signingKeys: Pick<SigningKeyAdministration, 'list'> | null;
  readonly organizations: Pick<Organizations, 'list' | 'find' | 'members'> | null;
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
      const errors: FormErrors = query.length > 254 ? { q: ['A search is at most 254 characters.'] } : { page: ['The page is a whole number, 1 or more.'] };
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
    const checked = auditFilters(input);
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

  /** An organization's members; 404 for an unknown one. An admin sees every organization (`OrganizationStanding.seesAll`). */
  async organization(request: EndpointRequest<unknown>): Promise<EndpointResponse> {
    const organizations = this.options.organizations;
    if (organizations === null) throw GatehouseError.notFound();
    const id = Number(idOf(request));
    const organization = await organizations.find(id);
    if (organization === null) throw GatehouseError.notFound('There is no such organization.');
    const members = await organizations.members({ userId: signedInUserId(request), ip: request.ip }, id);
    return this.page(request, 'adminOrganization', { sections: this.sections, organization, members });
  }

  /** After a form: 303 to `path`, with what the page says there. */
  back(path: string, notice: AdminNotice): EndpointResponse {
    return seeOther(`${path}?status=${notice}`, { headers: NO_STORE });
  }

  /** The page in the language of the request (`Accept-Language`, or the application's fixed one). */
  private page<Name extends PageName>(request: Pick<EndpointRequest, 'headers'>, name: Name, data: PageData[Name], status = 200): EndpointResponse {
    const { pages } = this.options;
    return pageResponse(pages, pages.render(name, data, pages.language(request.headers['accept-language'])), status);
  }

  private noticeOf(request: Pick<EndpointRequest, 'query'>): { notice?: string } {
    const status = textParameter(request, 'status');
    return status !== undefined && Object.hasOwn(NOTICES, status) ? { notice: NOTICES[status as AdminNotice] } : {};
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
