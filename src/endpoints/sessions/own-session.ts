import type { SessionManager } from '../../identity/sessions.ts';
import type { OwnSession } from '../../identity/user-sessions.ts';
import { BEARER_SCHEME } from '../../security/authentication/index.ts';
import type { AccessTokenValidator } from '../../tokens/access-token-validator.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import type { EndpointRequest } from '../endpoint.ts';

/** How the caller's own session is told: by its auth cookie, or by its access token's refresh family. */
export interface OwnSessionSources {
  /** The auth cookie: the session a request presents. */
  readonly cookies: Pick<CookieSignIn, 'presentedSession'>;
  /** The Cookies scheme's sessions: the one a presented token opens. */
  readonly cookieSessions: Pick<SessionManager, 'current'>;
  /** The Bearer scheme's validator: the refresh family of the request's access token. */
  readonly bearerTokens: Pick<AccessTokenValidator, 'validate'>;
}

/**
 * The caller's own session: its cookie session, or the refresh family of its access token. The
 * list marks it current, and "sign out everywhere else" spares it.
 */
export async function ownSession(request: Pick<EndpointRequest, 'headers' | 'user'>, sources: OwnSessionSources): Promise<OwnSession> {
  if (request.user.identity?.authenticationType === BEARER_SCHEME) return { familyId: await bearerFamily(request, sources) };
  const token = sources.cookies.presentedSession(request);
  if (token === null) return {};
  const session = await sources.cookieSessions.current(token);
  return session.valid ? { sessionId: session.sessionId } : {};
}

/** The family the request's access token names (authentication has just verified it). */
async function bearerFamily(request: Pick<EndpointRequest, 'headers'>, { bearerTokens }: OwnSessionSources): Promise<number | null> {
  const header = request.headers.authorization;
  const token = typeof header === 'string' && /^bearer /i.test(header) ? header.slice('Bearer '.length) : null;
  if (token === null) return null;
  const verified = await bearerTokens.validate(token);
  return verified.valid ? verified.familyId : null;
}
