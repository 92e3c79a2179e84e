import type { FastifyInstance } from 'fastify';
import type { CookieSignIn } from '../../endpoints/cookie-sign-in.ts';
import { sessionEndpoints } from '../../endpoints/sessions/session-endpoints.ts';
import type { SessionManager } from '../../identity/sessions.ts';
import type { SessionEnding } from '../../membership/session-ending.ts';
import type { AccessTokenValidator } from '../../tokens/access-token-validator.ts';
import { registerEndpoints } from '../endpoint-route.ts';
import type { MembershipPaths } from '../membership-paths.ts';

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

/** "Where you are signed in" (endpoints/sessions/session-endpoints.ts) on Fastify. */
export async function accountSessionRoutes(app: FastifyInstance, useCases: AccountSessionUseCases): Promise<void> {
  await registerEndpoints(app, sessionEndpoints(useCases));
}
