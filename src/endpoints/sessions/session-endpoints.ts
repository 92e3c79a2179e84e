import { type Static, Type } from '@sinclair/typebox';
import type { SessionEnding } from '../../membership/session-ending.ts';
import { GatehouseError } from '../../security/errors.ts';
import { prefersHtml } from '../browser-navigation.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type EndpointResponse } from '../endpoint.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { NO_STORE } from '../no-store.ts';
import { found, seeOther } from '../page-response.ts';
import { sessionJson } from '../session-json.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { ownSession, type OwnSessionSources } from './own-session.ts';

/** An opaque session id as the list hands it out; anything else of this length is simply unknown (404). */
const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
type SessionParams = Static<typeof SessionParams>;


/** What the sessions list calls, how it tells the caller's own session, and where its forms go back to. */
export interface SessionEndpointOptions extends OwnSessionSources {
  readonly sessions: Pick<SessionEnding, 'list' | 'end' | 'endOthers'>;
  /** The auth cookie: the session a request presents, and forgetting it when that session ends. */
  readonly cookies: Pick<CookieSignIn, 'presentedSession' | 'forgetSession'>;
  /** The login page (after ending one's own session) and the profile, where the list lives. */
  readonly paths: { readonly login: string; readonly profile: string };
}

/**
 * "Where you are signed in" for the signed-in user (docs/reference/http.md): `GET /account/sessions`
 * lists the user's cookie sessions and refresh-token families, `DELETE /account/sessions/:id`
 * ends one, `POST /account/sessions/revoke-others` all but the caller's own. The profile page's
 * buttons post forms: "Sign out" of another session to `POST /account/sessions/:id/revoke` (a
 * form cannot send DELETE), "Sign out everywhere else" to `revoke-others`; both answer 303 to the
 * profile. An API-key caller acts for no user and gets 403 (policy `User`).
 */
export function sessionEndpoints(options: SessionEndpointOptions): readonly Endpoint[] {
  const { sessions, cookies, paths } = options;

  const list = defineEndpoint({
    method: 'GET',
    path: '/account/sessions',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      // The list lives on the profile page.
      if (prefersHtml(request.headers.accept)) return found(`${paths.profile}#sessions`, { headers: NO_STORE });
      const listed = await sessions.list(signedInUserId(request), await ownSession(request, options));
      return { status: 200, headers: NO_STORE, body: listed.map(sessionJson) };
    },
  });

  const endOne = async (request: EndpointRequest<unknown>): Promise<EndpointResponse> => {
    const userId = signedInUserId(request);
    const own = await ownSession(request, options);
    // Its sockets close and its access tokens are refused now here and, through Redis, everywhere.
    const ended = await sessions.end(userId, (request.params as SessionParams).id, { by: userId, ip: request.ip });
    if (ended === null) throw GatehouseError.notFound((m) => m.problemNoSuchSession);
    const answer = new CookieList();
    const signedOut = ended.kind === 'cookie' && ended.id === own.sessionId;
    if (signedOut) cookies.forgetSession(answer);
    if (request.form) return seeOther(signedOut ? paths.login : `${paths.profile}?status=session-ended#sessions`, { headers: NO_STORE, cookies: answer.cookies });
    return { status: 204, headers: NO_STORE, cookies: answer.cookies };
  };
  // A form cannot send DELETE: the profile's buttons post to `…/revoke`.
  const endOneOf = (method: 'DELETE' | 'POST', path: string) =>
    defineEndpoint({ method, path, authorization: SIGNED_IN_USER, params: SessionParams, forms: true, successStatus: 204, handle: endOne });

  const endOthers = defineEndpoint({
    method: 'POST',
    path: '/account/sessions/revoke-others',
    authorization: SIGNED_IN_USER,
    forms: true,
    successStatus: 204,
    async handle(request) {
      const userId = signedInUserId(request);
      await sessions.endOthers(userId, await ownSession(request, options), { by: userId, ip: request.ip });
      if (request.form) return seeOther(`${paths.profile}?status=sessions-ended#sessions`, { headers: NO_STORE });
      return { status: 204, headers: NO_STORE };
    },
  });

  return [list, endOneOf('DELETE', '/account/sessions/:id'), endOneOf('POST', '/account/sessions/:id/revoke'), endOthers];
}
