import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { clearRefreshCookie, refreshCookieOf, setRefreshCookie } from '../refresh-cookie.ts';
import type { RouteContext } from './route-context.ts';

/** A refresh token in the body (`refreshToken`, or .NET's `RefreshToken`); the cookie otherwise. */
const RefreshRequest = Type.Object(
  {
    refreshToken: Type.Optional(Type.String({ maxLength: 512 })),
    RefreshToken: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);
type RefreshRequest = Static<typeof RefreshRequest>;
const anonymous = { authorization: { allowAnonymous: true } };

/**
 * `POST /auth/refresh` and `POST /auth/revoke`. Anonymous: an access token sent along is not
 * even read. A refused refresh is a bare 401 (no body), whatever the reason.
 */
export async function authRefreshRoutes(app: FastifyInstance, { services }: RouteContext): Promise<void> {
  app.post<{ Body: RefreshRequest | undefined }>(
    '/auth/refresh',
    { schema: { body: Type.Optional(RefreshRequest) }, config: anonymous },
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

  app.post<{ Body: RefreshRequest | undefined }>(
    '/auth/revoke',
    { schema: { body: Type.Optional(RefreshRequest) }, config: anonymous },
    async (request, reply) => {
      const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
      const presented = fromBody ?? refreshCookieOf(request);
      if (presented !== undefined) await services.refreshTokens.revoke(presented);
      if (fromBody === undefined) clearRefreshCookie(reply, services.config);
      return reply.code(204).send();
    },
  );
}
