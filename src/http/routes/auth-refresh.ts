import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { signInClient } from '../../identity/sign-in-client.ts';
import type { RefreshTokens } from '../../tokens/refresh-tokens.ts';
import { CrossSitePolicy } from '../cross-site.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { problem, sendProblem } from '../problem.ts';
import { clearRefreshCookie, refreshCookieOf, setRefreshCookie } from '../refresh-cookie.ts';

/** What refresh and revoke use: the refresh families, the settings of their cookie, and where `/auth` is (the cookie's path). */
export interface AuthRefreshRouteOptions {
  readonly config: Config;
  readonly paths: MembershipPaths;
  readonly refreshTokens: Pick<RefreshTokens, 'refresh' | 'revoke'>;
}

/** A refresh token in the body (`refreshToken`, or .NET's `RefreshToken`); the cookie otherwise. */
const RefreshRequest = Type.Object(
  {
    // Long enough for anything a confused client might send (an access token gets 401, not 400).
    refreshToken: Type.Optional(Type.String({ maxLength: 8192 })),
    RefreshToken: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  { additionalProperties: false },
);
type RefreshRequest = Static<typeof RefreshRequest>;
/** No body at all is fine: the token then comes from the cookie. */
const OptionalRefreshRequest = Type.Union([RefreshRequest, Type.Null()]);
const anonymous = { authorization: { allowAnonymous: true } };

/**
 * `POST /auth/refresh` and `POST /auth/revoke`. Anonymous: an access token sent along is not
 * even read. A refused refresh is a bare 401 (no body), whatever the reason. A token read from
 * the `gh.refresh` cookie is a credential the browser attaches on its own, so such a request
 * passes the cross-site check of the cookie scheme (docs/reference/http.md) first: from another site it
 * is 403, and the cookie is neither used, rotated nor cleared.
 */
export async function authRefreshRoutes(app: FastifyInstance, { config, paths, refreshTokens }: AuthRefreshRouteOptions): Promise<void> {
  const crossSite = new CrossSitePolicy([config.publicUrl.origin, ...config.corsOrigins]);
  /** True when the cookie may be read; otherwise the request has been answered 403. */
  const cookieMayBeRead = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (crossSite.allows(request)) return true;
    sendProblem(reply, problem('GH_FORBIDDEN', 'Cross-site requests with the refresh cookie are refused.', { policy: [] }));
    return false;
  };

  app.post<{ Body: RefreshRequest | null | undefined }>(
    '/auth/refresh',
    { schema: { body: OptionalRefreshRequest }, config: anonymous },
    async (request, reply) => {
      const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
      const presented = fromBody ?? refreshCookieOf(request, config);
      if (presented === undefined) return reply.code(401).send();
      if (fromBody === undefined && !cookieMayBeRead(request, reply)) return reply;
      const result = await refreshTokens.refresh(presented, { ip: request.ip, client: signInClient(request.ip, request.headers['user-agent']) });
      if (!result.ok) {
        if (fromBody === undefined) clearRefreshCookie(reply, config, paths.auth);
        return reply.code(401).send();
      }
      const { pair } = result;
      const body = { accessToken: pair.accessToken, tokenType: 'Bearer', expiresIn: pair.expiresIn };
      if (fromBody === undefined) {
        // It came as a cookie: it goes back as one.
        setRefreshCookie(reply, config, paths.auth, pair.refreshToken, pair.refreshExpiresAt);
        return reply.send(body);
      }
      return reply.send({ ...body, refreshToken: pair.refreshToken });
    },
  );

  app.post<{ Body: RefreshRequest | null | undefined }>(
    '/auth/revoke',
    { schema: { body: OptionalRefreshRequest }, config: { ...anonymous, successStatus: 204 } },
    async (request, reply) => {
      const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
      const presented = fromBody ?? refreshCookieOf(request, config);
      if (fromBody === undefined && presented !== undefined && !cookieMayBeRead(request, reply)) return reply;
      if (presented !== undefined) await refreshTokens.revoke(presented);
      if (fromBody === undefined) clearRefreshCookie(reply, config, paths.auth);
      return reply.code(204).send();
    },
  );
}
