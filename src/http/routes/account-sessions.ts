import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SessionManager } from '../../identity/sessions.ts';
import type { OwnSession } from '../../identity/user-sessions.ts';
import type { SessionEnding } from '../../membership/session-ending.ts';
import { BEARER_SCHEME } from '../../security/authentication/index.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { AccessTokenValidator } from '../../tokens/access-token-validator.ts';
import type { CookieSignIn } from '../../endpoints/cookie-sign-in.ts';
import { sessionJson } from '../../endpoints/session-json.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { membershipPolicies } from '../membership-policies.ts';
import { isFormPost, seeOther, wantsPage } from '../negotiation.ts';
import { userIdOf } from '../pipeline.ts';
import { formBodiesPlugin } from '../plugins/form-bodies.ts';
import { replyCookies } from '../reply-cookies.ts';

/** An opaque session id as the list hands it out; anything else of this length is simply unknown (404). */
const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
type SessionParams = Static<typeof SessionParams>;

const forUser = { authorization: { authorize: [{ policy: membershipPolicies.user }] } };

/** What the sessions list calls, and how it tells the caller's own session. */
export interface AccountSessionUseCases {
  readonly sessions: SessionEnding;
  /** The auth cookie: the session a request presents, and forgetting it when that session ends. */
  readonly cookies: Pick<CookieSignIn, 'presentedSession' | 'forgetSession'>;
  /** The Cookies scheme's sessions: the one a presented token opens. */
  readonly cookieSessions: Pick<SessionManager, 'current'>;
  /** The Bearer scheme's validator: the refresh family of the request's access token. */
  readonly bearerTokens: Pick<AccessTokenValidator, 'validate'>;
  readonly paths: MembershipPaths;
}

/**
 * "Where you are signed in" for the signed-in user (docs/reference/http.md): `GET /account/sessions`
 * lists the user's cookie sessions and refresh-token families, `DELETE /account/sessions/:id`
 * ends one, `POST /account/sessions/revoke-others` all but the caller's own. The profile page's
 * buttons post forms: "Sign out" of another session to `POST /account/sessions/:id/revoke` (a
 * form cannot send DELETE), "Sign out everywhere else" to `revoke-others`; both answer 303 to the
 * profile. An API-key caller acts for no user and gets 403 (policy `User`).
 */
export async function accountSessionRoutes(app: FastifyInstance, useCases: AccountSessionUseCases): Promise<void> {
  const { sessions, cookies, paths } = useCases;
  await app.register(formBodiesPlugin);

  app.get('/account/sessions', { config: forUser }, async (request, reply) => {
    // The list lives on the profile page.
    if (wantsPage(request)) return noStore(reply).redirect(`${paths.profile}#sessions`);
    const listed = await sessions.list(userIdOf(request), await ownSession(request));
    return noStore(reply).send(listed.map(sessionJson));
  });

  const endOne = async (request: FastifyRequest<{ Params: SessionParams }>, reply: FastifyReply) => {
    const userId = userIdOf(request);
    const own = await ownSession(request);
    // Its sockets close and its access tokens are refused now here and, through Redis, everywhere.
    const ended = await sessions.end(userId, request.params.id, { by: userId, ip: request.ip });
    if (ended === null) throw GatehouseError.notFound('There is no such session.');
    const signedOut = ended.kind === 'cookie' && ended.id === own.sessionId;
    if (signedOut) cookies.forgetSession(replyCookies(reply));
    if (isFormPost(request)) return seeOther(noStore(reply), signedOut ? paths.login : `${paths.profile}?status=session-ended#sessions`);
    return noStore(reply).code(204).send();
  };
  app.delete<{ Params: SessionParams }>('/account/sessions/:id', { schema: { params: SessionParams }, config: { ...forUser, successStatus: 204 } }, endOne);
  app.post<{ Params: SessionParams }>('/account/sessions/:id/revoke', { schema: { params: SessionParams }, config: { ...forUser, successStatus: 204 } }, endOne);

  app.post('/account/sessions/revoke-others', { config: { ...forUser, successStatus: 204 } }, async (request, reply) => {
    const userId = userIdOf(request);
    await sessions.endOthers(userId, await ownSession(request), { by: userId, ip: request.ip });
    if (isFormPost(request)) return seeOther(noStore(reply), `${paths.profile}?status=sessions-ended#sessions`);
    return noStore(reply).code(204).send();
  });

  /** The caller's own session: its cookie session, or the refresh family of its access token. */
  async function ownSession(request: FastifyRequest): Promise<OwnSession> {
    if (request.user.identity?.authenticationType === BEARER_SCHEME) return { familyId: await bearerFamily(request) };
    const token = cookies.presentedSession(request);
    if (token === null) return {};
    const session = await useCases.cookieSessions.current(token);
    return session.valid ? { sessionId: session.sessionId } : {};
  }

  /** The family the request's access token names (the pipeline has just verified and remembered it). */
  async function bearerFamily(request: FastifyRequest): Promise<number | null> {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && /^bearer /i.test(header) ? header.slice('Bearer '.length) : null;
    if (token === null) return null;
    const verified = await useCases.bearerTokens.validate(token);
    return verified.valid ? verified.familyId : null;
  }
}

/** Answers about a signed-in user are never cached by the browser or a proxy. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
