import { type Static, Type } from '@sinclair/typebox';
import type { ActiveOrganizations } from '../../organizations/active-organization.ts';
import type { Organizations } from '../../organizations/organizations.ts';
import { COOKIES_SCHEME } from '../../security/authentication/index.ts';
import { GatehouseError } from '../../security/errors.ts';
import { ORGANIZATION_CLAIM } from '../../organizations/organization-roles.ts';
import { ANONYMOUS, SIGNED_IN_USER } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { found } from '../page-response.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { ownSession, type OwnSessionSources } from '../sessions/own-session.ts';
import { formOnly } from './organization-forms.ts';
import { callerOf } from './organization-endpoints.ts';
import type { OrganizationPages } from './organization-pages.ts';

/** An invitation's code as links carry it; anything else of this length is simply unknown (404). */
const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 128 }) });
const ActiveBody = Type.Object(
  { organizationId: Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()]) },
  { additionalProperties: false },
);
/** The page's switch: an id as a form writes it, or empty for none. */
const SwitchForm = Type.Object({ organizationId: Type.String({ pattern: '^([1-9][0-9]{0,14})?$' }) }, { additionalProperties: false });

export interface AccountOrganizationEndpointOptions extends OwnSessionSources {
  readonly organizations: Pick<Organizations, 'listForUser' | 'preview' | 'accept'>;
  readonly activeOrganizations: Pick<ActiveOrganizations, 'switchSession'>;
  /** The pages a browser gets instead of JSON, and that the forms come back to. */
  readonly pages: OrganizationPages;
}

/**
 * The signed-in user's side of organizations: the list with the active one, the cookie session's
 * switch, and invitations seen (anonymously, per-IP limited) and accepted. A browser gets pages:
 * the list with its forms (the switch posts to `/account/organizations/switch`), and the
 * invitation's page, whose Accept form posts to the accept route.
 */
export function accountOrganizationEndpoints(options: AccountOrganizationEndpointOptions): readonly Endpoint[] {
  const { organizations, activeOrganizations, pages } = options;

  const list = defineEndpoint({
    method: 'GET',
    path: '/account/organizations',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      if (prefersHtml(request.headers.accept)) return pages.list(request, { notice: pages.noticeOf(request) });
      const active = request.user.findFirst(ORGANIZATION_CLAIM)?.value;
      const listed = await organizations.listForUser(signedInUserId(request));
      const body = listed.map(({ id, name, slug, roles }) => ({ id, name, slug, roles, active: String(id) === active }));
      return { status: 200, headers: NO_STORE, body };
    },
  });

  const switchActive = defineEndpoint<Static<typeof ActiveBody>>({
    method: 'POST',
    path: '/account/organizations/active',
    authorization: SIGNED_IN_USER,
    body: ActiveBody,
    successStatus: 204,
    async handle(request) {
      const sessionId = await cookieSessionOf(request, options);
      await activeOrganizations.switchSession(signedInUserId(request), sessionId, request.body.organizationId);
      return { status: 204, headers: NO_STORE };
    },
  });

  const switchByForm = defineEndpoint<Static<typeof SwitchForm>>({
    method: 'POST',
    path: '/account/organizations/switch',
    authorization: SIGNED_IN_USER,
    body: SwitchForm,
    forms: true,
    async handle(request) {
      formOnly(request);
      const organizationId = request.body.organizationId === '' ? null : Number(request.body.organizationId);
      const sessionId = await cookieSessionOf(request, options);
      await activeOrganizations.switchSession(signedInUserId(request), sessionId, organizationId);
      return pages.backToList(organizationId === null ? 'organization-cleared' : 'organization-switched');
    },
    formErrors: (request, errors) => pages.list(request, { errors }),
  });

  const preview = defineEndpoint({
    method: 'GET',
    path: '/account/invitations/:code',
    authorization: ANONYMOUS,
    params: CodeParams,
    // Codes carry 256 bits; the per-client limit keeps a guesser from even trying many.
    rateLimits: {},
    async handle(request) {
      if (prefersHtml(request.headers.accept)) {
        // This route reads no credentials: a browser signed in already gets the page with the
        // Accept form, whose antiforgery field must name its user.
        if (await pages.holdsSession(request)) return found(pages.acceptPage(codeOf(request)), { headers: NO_STORE });
        return pages.invitation(request, codeOf(request), false);
      }
      const { organization, email, roles } = await organizations.preview(codeOf(request));
      return { status: 200, headers: NO_STORE, body: { organization, email, roles } };
    },
  });

  const acceptPage = defineEndpoint({
    method: 'GET',
    path: '/account/invitations/:code/accept',
    authorization: SIGNED_IN_USER,
    params: CodeParams,
    rateLimits: {},
    async handle(request) {
      // A page only: API clients read the invitation at its own route.
      if (!prefersHtml(request.headers.accept)) throw GatehouseError.notFound();
      return pages.invitation(request, codeOf(request), true);
    },
  });

  const accept = defineEndpoint({
    method: 'POST',
    path: '/account/invitations/:code/accept',
    authorization: SIGNED_IN_USER,
    params: CodeParams,
    forms: true,
    rateLimits: {},
    async handle(request) {
      const organizationId = await organizations.accept(callerOf(request), codeOf(request));
      if (request.form) return pages.backToList('invitation-accepted');
      return { status: 200, headers: NO_STORE, body: { organizationId } };
    },
    // Another address (403) says so beside the Accept form; a code gone meanwhile is the 404 page.
    formErrors: (request, errors) => pages.invitation(request, codeOf(request), true, errors),
  });

  return [list, switchActive, switchByForm, preview, acceptPage, accept];
}

/** The cookie session of the request: the active organization of a token is chosen at `/auth/refresh` instead. */
async function cookieSessionOf(request: EndpointRequest<unknown>, sources: OwnSessionSources): Promise<number> {
  if (request.user.identity?.authenticationType === COOKIES_SCHEME) {
    const { sessionId } = await ownSession(request, sources);
    if (sessionId !== undefined && sessionId !== null) return sessionId;
  }
  throw new GatehouseError('GH_FORBIDDEN', (m) => m.problemOrganizationSwitchCookieOnly);
}

function codeOf(request: EndpointRequest<unknown>): string {
  return (request.params as Static<typeof CodeParams>).code;
}
