import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { clearRefreshCookie, refreshCookieOf, setRefreshCookie } from '../refresh-cookie.ts';
import type { RouteContext } from './route-context.ts';

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
 * even read. A refused refresh is a bare 401 (no body), whatever the reason.
 */
export async function authRefreshRoutes(app: FastifyInstance, { services }: RouteContext): Promise<void> {
  app.post<{ Body: RefreshRequest | null | undefined }>(
    '/auth/refresh',
    { schema: { body: OptionalRefreshRequest }, config: anonymous },
    async (request, reply) => {
      const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
      const presented = fromBody ?? refreshCookieOf(request);
      reply.header('cache-control', 'no-store');
      if (presented === undefined) return reply.code(401).send();
      const result = await services.refreshTokens.refresh(presented, { ip: request.ip });
      if (!result.ok) {
        if (fromBody === undefined) clearRefreshCookie(reply, services.config);
        return reply.code(401).send();
      }
      const { pair } = result;
      const body = { accessToken: pair.accessToken, tokenType: 'Bearer', expiresIn: pair.expiresIn };
      if (fromBody === undefined) {
        // It came as a cookie: it goes back as one.
        setRefreshCookie(reply, services.config, pair.refreshToken, pair.refreshExpiresAt);
        return reply.send(body);
      }
      return reply.send({ ...body, refreshToken: pair.refreshToken });
    },
  );

  app.post<{ Body: RefreshRequest | null | undefined }>(
    '/auth/revoke',
    { schema: { body: OptionalRefreshRequest }, config: anonymous },
    async (request, reply) => {
      const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
      const presented = fromBody ?? refreshCookieOf(request);
      if (presented !== undefined) await services.refreshTokens.revoke(presented);
      if (fromBody === undefined) clearRefreshCookie(reply, services.config);
      return reply.code(204).send();
    },
  );
}
