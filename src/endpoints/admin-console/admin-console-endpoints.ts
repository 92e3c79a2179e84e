/**
 * The admin console (docs/admin-console.md): pages for browsers over the admin API, in the same
 * group (`AdminOnly`, role `Admin`), calling the same use cases with the admin as the actor.
 *
 * Where the API has a route of the page's path (`GET /admin/users`, `GET /admin/audit`), that
 * route answers a browser (HTML preferred) with the page and everyone else exactly as before. Its
 * forms post to the API's own `POST` routes, which take forms too and answer them 303 back to the
 * page, or to a `POST` twin of a `DELETE` route (`…/delete`, `…/remove`, `…/end`); the rest is
 * the console's own. Every form carries the antiforgery field; a refused form comes back as its
 * page with the errors.
 */
import type { Messages } from '../../i18n/messages.ts';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { Actor } from '../../membership/actor.ts';
import type { ApiKeyAdministration } from '../../membership/api-key-administration.ts';
import type { Organizations } from '../../organizations/organizations.ts';
import type { SigningKeyAdministration } from '../../membership/signing-key-administration.ts';
import { type FieldErrors, GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';
import { adminActor } from '../admin/admin-actor.ts';
import { ADMIN_GROUP } from '../admin/admin-group.ts';
import { existingUser } from '../admin/existing-user.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type EndpointResponse, inGroup } from '../endpoint.ts';
import { IdParams } from '../id-params.ts';
import { NO_STORE } from '../no-store.ts';
import { callerOf } from '../organizations/organization-endpoints.ts';
import { formOnly } from '../organizations/organization-forms.ts';
import { MemberParams, memberIdOf, organizationIdOf } from '../organizations/organization-params.ts';
import { seeOther } from '../page-response.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { AdminConsolePages, type AdminConsolePagesOptions, type AdminNotice } from './admin-console-pages.ts';
import { AUDIT_FILTERS } from './audit-filters.ts';
import type { NewApiKeyCookie } from './new-api-key-cookie.ts';

const ClientForm = Type.Object({ client: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
type ClientForm = Static<typeof ClientForm>;
const KidForm = Type.Object({ kid: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });
type KidForm = Static<typeof KidForm>;
/** The ticked roles: one ticked arrives as text, several as a list, none not at all. */
const RoleField = Type.String({ maxLength: 64 });
const MemberRolesForm = Type.Object({ roles: Type.Optional(Type.Union([RoleField, Type.Array(RoleField, { maxItems: 64 })])) }, { additionalProperties: false });
type MemberRolesForm = Static<typeof MemberRolesForm>;

/** What the console calls besides what its pages read. */
export interface AdminConsoleOptions extends AdminConsolePagesOptions {
  readonly apiKeys: Pick<ApiKeyAdministration, 'list' | 'create' | 'revoke'> | null;
  readonly signingKeys: Pick<SigningKeyAdministration, 'list' | 'rotate' | 'revoke'> | null;
  readonly organizations: Pick<Organizations, 'list' | 'find' | 'members' | 'declaredRoles' | 'setMemberRoles' | 'removeMember'> | null;
  /** A fresh confirmation mail to the user's address (registration's, with its links), audited as the admin's. */
  readonly resendConfirmation: (user: User, actor: Actor) => Promise<boolean>;
}

/** The admin API with the console over it: the API's routes as they are for API callers, and the console's. */
export function withAdminConsole(api: readonly Endpoint[], options: AdminConsoleOptions): Endpoint[] {
  const pages = new AdminConsolePages(options);
  const route = apiRoute(api);
  const changed = new Map<Endpoint, Endpoint>([
    [route('GET /admin/users'), pageForBrowsers(route('GET /admin/users'), (request) => pages.users(request))],
    [route('GET /admin/audit'), auditForBrowsers(route('GET /admin/audit'), pages)],
    ...userForms(pages, route),
  ]);
  const answered = api.map((endpoint) => changed.get(endpoint) ?? endpoint);
  return [...answered, ...formTwins(pages, api), ...inGroup(ADMIN_GROUP, consoleEndpoints(pages, options))];
}

type RouteOf = (key: string) => Endpoint;

/** The API's route by method and path (`POST /admin/users/:id/lock`): the console is built over it. */
function apiRoute(api: readonly Endpoint[]): RouteOf {
  return (key) => {
    const found = api.find((endpoint) => `${endpoint.method} ${endpoint.path}` === key);
    if (found === undefined) throw new Error(`The admin console needs the admin API's ${key}.`);
    return found;
  };
}

/** An API route that answers a browser with the console's page, and every other caller as before. */
function pageForBrowsers(endpoint: Endpoint, page: (request: EndpointRequest) => Promise<EndpointResponse>): Endpoint {
  return { ...endpoint, handle: (request) => (prefersHtml(request.headers.accept) ? page(request) : endpoint.handle(request)) };
}

/**
 * `GET /admin/audit`: the page takes the filters besides the API's `limit` and `before`, which
 * keep their checks; a JSON caller is refused the filters as any unknown parameter (400), so its
 * answers are the API's.
 */
function auditForBrowsers(endpoint: Endpoint, pages: AdminConsolePages): Endpoint {
  const filter = Type.Optional(Type.String());
  const query = Type.Object({ ...(endpoint.query as TObject).properties, type: filter, userId: filter, from: filter, to: filter }, { additionalProperties: false });
  return {
    ...endpoint,
    query,
    handle: (request) => {
      if (prefersHtml(request.headers.accept)) return pages.audit(request);
      const given = AUDIT_FILTERS.filter((name) => request.query[name] !== undefined);
      if (given.length > 0) throw GatehouseError.validation(Object.fromEntries(given.map((name) => [name, [(m: Messages) => m.problemFieldNotAllowed]])));
      return endpoint.handle(request);
    },
  };
}

/**
 * An API route that takes the console's form too: the same handler, then 303 back to the page
 * (`back`) for a form post, or the page again with the errors of a refused one.
 */
function takingForms(endpoint: Endpoint, back: (request: EndpointRequest) => EndpointResponse, refused: NonNullable<Endpoint['formErrors']>): Endpoint {
  return {
    ...endpoint,
    forms: true,
    formErrors: refused,
    async handle(request) {
      const answer = await endpoint.handle(request);
      return request.form ? back(request) : answer;
    },
  };
}

/** A `POST` twin of an API route a form cannot call (`DELETE`): the same handler for forms only, then 303. */
function formTwin(endpoint: Endpoint, path: string, back: (request: EndpointRequest) => EndpointResponse, refused: NonNullable<Endpoint['formErrors']>): Endpoint {
  const { successStatus: _noContent, ...route } = endpoint;
  return {
    ...route,
    method: 'POST',
    path,
    forms: true,
    formErrors: refused,
    async handle(request) {
      formOnly(request);
      await endpoint.handle(request);
      return back(request);
    },
  };
}

/** Back to the user's page, saying what the form did. */
function backToUser(pages: AdminConsolePages, notice: AdminNotice) {
  return (request: EndpointRequest) => pages.back(pages.paths.user(userIdOf(request)), notice);
}

/** The user page's forms that post to the API's own routes: lock, unlock, add a role. */
function userForms(pages: AdminConsolePages, route: RouteOf): [Endpoint, Endpoint][] {
  const refused = (request: EndpointRequest<unknown>, errors: FieldErrors) => pages.user(request, { errors, role: roleOf(request.body) });
  const forms: [string, AdminNotice][] = [
    ['POST /admin/users/:id/lock', 'locked'],
    ['POST /admin/users/:id/unlock', 'unlocked'],
    ['POST /admin/users/:id/roles', 'role-added'],
  ];
  return forms.map(([key, notice]) => [route(key), takingForms(route(key), backToUser(pages, notice), refused)]);
}

/** The twins of the API's `DELETE` routes: delete a user, take a role, end every session (where the API lists sessions). */
function formTwins(pages: AdminConsolePages, api: readonly Endpoint[]): Endpoint[] {
  const route = apiRoute(api);
  const toUser = (notice: AdminNotice) => backToUser(pages, notice);
  const userPage = (request: EndpointRequest<unknown>, errors: FieldErrors) => pages.user(request, { errors });
  const remove = route('DELETE /admin/users/:id');
  const removeRole = route('DELETE /admin/users/:id/roles/:role');
  const endSessions = api.find((endpoint) => endpoint.method === 'DELETE' && endpoint.path === '/admin/users/:id/sessions');
  return [
    formTwin(remove, '/admin/users/:id/delete', () => pages.back(pages.paths.users, 'user-deleted'), (request, errors) => pages.userDelete(request, errors)),
    formTwin(removeRole, '/admin/users/:id/roles/:role/remove', toUser('role-removed'), userPage),
    ...(endSessions === undefined ? [] : [formTwin(endSessions, '/admin/users/:id/sessions/end', toUser('sessions-ended'), userPage)]),
  ];
}

/** The console's own routes: its pages, and the forms the API has no route for. */
function consoleEndpoints(pages: AdminConsolePages, options: AdminConsoleOptions): Endpoint[] {
  return [
    page('/admin', (request) => pages.home(request)),
    page('/admin/users/:id', (request) => pages.user(request), IdParams),
    page('/admin/users/:id/delete', (request) => pages.userDelete(request), IdParams),
    resendConfirmation(pages, options),
    ...(options.apiKeys === null ? [] : apiKeyEndpoints(pages, options.apiKeys, options.newKeys)),
    ...(options.signingKeys === null ? [] : signingKeyEndpoints(pages, options.signingKeys)),
    ...(options.organizations === null ? [] : organizationEndpoints(pages, options.organizations)),
  ];
}

/**
 * The organizations, one organization's members, and its forms: a member's roles, and a member's
 * removal. They call the use cases the API's `PATCH` and `DELETE /orgs/:id/members/:userId` call,
 * with the admin as the caller, so the admin's standing decides as it does there: `SuperAdmin`
 * manages every organization, a plain `Admin` only sees it (403, on the page).
 */
function organizationEndpoints(pages: AdminConsolePages, organizations: NonNullable<AdminConsoleOptions['organizations']>): Endpoint[] {
  const back = (request: EndpointRequest, notice: AdminNotice) => pages.back(pages.paths.organization(organizationIdOf(request)), notice);
  const refused = (request: EndpointRequest<unknown>, errors: FieldErrors) => pages.organization(request, { errors });

  const memberRoles = defineEndpoint<MemberRolesForm>({
    method: 'POST',
    path: '/admin/organizations/:id/members/:userId/roles',
    authorization: {},
    params: MemberParams,
    body: MemberRolesForm,
    forms: true,
    async handle(request) {
      formOnly(request);
      await organizations.setMemberRoles(callerOf(request), organizationIdOf(request), memberIdOf(request), rolesOf(request.body.roles));
      return back(request, 'member-roles-changed');
    },
    formErrors: refused,
  });

  const removeMember = defineEndpoint({
    method: 'POST',
    path: '/admin/organizations/:id/members/:userId/remove',
    authorization: {},
    params: MemberParams,
    forms: true,
    async handle(request) {
      formOnly(request);
      await organizations.removeMember(callerOf(request), organizationIdOf(request), memberIdOf(request));
      return back(request, 'member-removed');
    },
    formErrors: refused,
  });

  return [
    page('/admin/organizations', (request) => pages.organizations(request)),
    page('/admin/organizations/:id', (request) => pages.organization(request), IdParams),
    memberRoles,
    removeMember,
  ];
}

/** A page of the console's own: it has no JSON twin, so it is a page for any caller. */
function page(path: string, render: (request: EndpointRequest) => Promise<EndpointResponse>, params?: typeof IdParams): Endpoint {
  return defineEndpoint({ method: 'GET', path, authorization: {}, ...(params ? { params } : {}), handle: render });
}

/** A fresh confirmation link for an address not confirmed yet; a confirmed one is a 409 on the page. */
function resendConfirmation(pages: AdminConsolePages, { users, resendConfirmation: resend }: AdminConsoleOptions): Endpoint {
  return defineEndpoint({
    method: 'POST',
    path: '/admin/users/:id/resend-confirmation',
    authorization: {},
    params: IdParams,
    forms: true,
    async handle(request) {
      formOnly(request);
      const user = await existingUser(users, request.params.id!);
      if (user.emailConfirmed) throw new GatehouseError('GH_CONFLICT', (m) => m.adminUserConfirmedAlready);
      await resend(user, adminActor(request));
      return pages.back(pages.paths.user(user.id), 'confirmation-sent');
    },
    formErrors: (request, errors) => pages.user(request, { errors }),
  });
}

/** A new key (shown once, on the page the form is sent back to), and the revocation of a client's keys. */
function apiKeyEndpoints(pages: AdminConsolePages, apiKeys: NonNullable<AdminConsoleOptions['apiKeys']>, newKeys: NewApiKeyCookie): Endpoint[] {
  const create = defineEndpoint<ClientForm>({
    method: 'POST',
    path: '/admin/api-keys',
    authorization: {},
    body: ClientForm,
    forms: true,
    async handle(request) {
      formOnly(request);
      const { client } = request.body;
      const key = await apiKeys.create(client, adminActor(request));
      const answer = new CookieList();
      newKeys.set(answer, { client, key }, String(signedInUserId(request)));
      return seeOther(`${pages.paths.apiKeys}?status=key-created`, { headers: NO_STORE, cookies: answer.cookies });
    },
    formErrors: (request, errors) => pages.apiKeys(request, { errors, client: typeof request.body?.client === 'string' ? request.body.client : '' }),
  });

  const revoke = defineEndpoint<ClientForm>({
    method: 'POST',
    path: '/admin/api-keys/revoke',
    authorization: {},
    body: ClientForm,
    forms: true,
    async handle(request) {
      formOnly(request);
      if ((await apiKeys.revoke(request.body.client, adminActor(request))) === 0) throw GatehouseError.notFound((m) => m.adminApiKeysNoActiveKey);
      return pages.back(pages.paths.apiKeys, 'client-revoked');
    },
    formErrors: (request, errors) => pages.apiKeys(request, { errors }),
  });

  return [page('/admin/api-keys', (request) => pages.apiKeys(request)), create, revoke];
}

/** A rotation, and the revocation of one key (of the current one, with a rotation first). */
function signingKeyEndpoints(pages: AdminConsolePages, signingKeys: NonNullable<AdminConsoleOptions['signingKeys']>): Endpoint[] {
  const rotate = defineEndpoint({
    method: 'POST',
    path: '/admin/signing-keys/rotate',
    authorization: {},
    forms: true,
    async handle(request) {
      formOnly(request);
      await signingKeys.rotate(adminActor(request));
      return pages.back(pages.paths.signingKeys, 'key-rotated');
    },
    formErrors: (request, errors) => pages.signingKeys(request, errors),
  });

  const revoke = defineEndpoint<KidForm>({
    method: 'POST',
    path: '/admin/signing-keys/revoke',
    authorization: {},
    body: KidForm,
    forms: true,
    async handle(request) {
      formOnly(request);
      const { revoked } = await signingKeys.revoke(request.body.kid, adminActor(request));
      if (!revoked) throw GatehouseError.notFound((m) => m.adminSigningKeysNoActiveKey);
      return pages.back(pages.paths.signingKeys, 'key-revoked');
    },
    formErrors: (request, errors) => pages.signingKeys(request, errors),
  });

  return [page('/admin/signing-keys', (request) => pages.signingKeys(request)), rotate, revoke];
}

function userIdOf(request: Pick<EndpointRequest, 'params'>): number {
  return Number(request.params.id);
}

/** The ticked roles as a list, whether none, one or several were ticked. */
function rolesOf(roles: string | readonly string[] | undefined): string[] {
  if (roles === undefined) return [];
  return typeof roles === 'string' ? [roles] : [...roles];
}

/** The role a refused "Add" form sent, to write back into it. */
function roleOf(body: unknown): string | undefined {
  const role = (body as { role?: unknown } | undefined)?.role;
  return typeof role === 'string' ? role : undefined;
}
