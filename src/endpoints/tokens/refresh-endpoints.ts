import { type Static, Type } from '@sinclair/typebox';
import type { Config } from '../../config/config.ts';
import { signInClient } from '../../identity/sign-in-client.ts';
import { problem } from '../../security/problem-details.ts';
import type { RefreshTokens } from '../../tokens/refresh-tokens.ts';
import { CrossSitePolicy } from '../cross-site.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type EndpointResponse } from '../endpoint.ts';
import { problemResponse } from '../problem-response.ts';
import { OrganizationChoice } from './organization-choice.ts';
import { clearedRefreshCookie, refreshCookie, refreshCookieOf } from './refresh-cookie.ts';

/** What refresh and revoke use: the refresh families, the settings of their cookie, and where the token endpoints are (the cookie's path). */
export interface RefreshEndpointOptions {
  readonly config: Pick<Config, 'production' | 'publicUrl' | 'corsOrigins'>;
  /** The token endpoints' path, `/auth` under the mount point: the refresh cookie's. */
  readonly authPath: string;
  readonly refreshTokens: Pick<RefreshTokens, 'refresh' | 'revoke'>;
}

/** A refresh token in the body (`refreshToken`, or .NET's `RefreshToken`); the cookie otherwise. */
const RefreshRequest = Type.Object(
  {
    // Long enough for anything a confused client might send (an access token gets 401, not 400).
    refreshToken: Type.Optional(Type.String({ maxLength: 8192 })),
    RefreshToken: Type.Optional(Type.String({ maxLength: 8192 })),
    organizationId: Type.Optional(OrganizationChoice),
  },
  { additionalProperties: false },
);
type RefreshRequest = Static<typeof RefreshRequest>;
/** No body at all is fine: the token then comes from the cookie. */
export const OptionalRefreshRequest = Type.Union([RefreshRequest, Type.Null()]);
type OptionalRefreshRequest = RefreshRequest | null | undefined;

const REFUSED: EndpointResponse = Object.freeze({ status: 401 });
const CROSS_SITE = problemResponse(problem('GH_FORBIDDEN', (m) => m.problemCrossSiteRefreshCookie, { policy: [] }));

/**
 * `POST /auth/refresh` and `POST /auth/revoke`. Anonymous: an access token sent along is not
 * even read. A refused refresh is a bare 401 (no body), whatever the reason. A token read from
 * the `gh.refresh` cookie is a credential the browser attaches on its own, so such a request
 * passes the cross-site check of the cookie scheme (docs/reference/http.md) first: from another site it
 * is 403, and the cookie is neither used, rotated nor cleared.
 */
export function refreshEndpoints({ config, authPath, refreshTokens }: RefreshEndpointOptions): readonly Endpoint[] {
  const crossSite = new CrossSitePolicy([config.publicUrl.origin, ...config.corsOrigins]);
  const presentedBy = (request: EndpointRequest<OptionalRefreshRequest>) => {
    const fromBody = request.body?.refreshToken ?? request.body?.RefreshToken;
    return { fromBody, presented: fromBody ?? refreshCookieOf(request.cookies, config) };
  };

  const refresh = defineEndpoint<OptionalRefreshRequest>({
    method: 'POST',
    path: '/auth/refresh',
    authorization: { allowAnonymous: true },
    body: OptionalRefreshRequest,
    async handle(request) {
      const { fromBody, presented } = presentedBy(request);
      if (presented === undefined) return REFUSED;
      if (fromBody === undefined && !crossSite.allows(request)) return CROSS_SITE;
      const organizationId = request.body?.organizationId;
      const result = await refreshTokens.refresh(presented, {
        ip: request.ip,
        client: signInClient(request.ip, request.headers['user-agent']),
        ...(organizationId === undefined ? {} : { organizationId }),
      });
      if (!result.ok) return fromBody === undefined ? { ...REFUSED, cookies: [clearedRefreshCookie(config, authPath)] } : REFUSED;
      const { pair } = result;
      const body = { accessToken: pair.accessToken, tokenType: 'Bearer', expiresIn: pair.expiresIn };
      // It came as a cookie: it goes back as one.
      if (fromBody === undefined) return { status: 200, cookies: [refreshCookie(config, authPath, pair.refreshToken, pair.refreshExpiresAt)], body };
      return { status: 200, body: { ...body, refreshToken: pair.refreshToken } };
    },
  });

  const revoke = defineEndpoint<OptionalRefreshRequest>({
    method: 'POST',
    path: '/auth/revoke',
    authorization: { allowAnonymous: true },
    body: OptionalRefreshRequest,
    successStatus: 204,
    async handle(request) {
      const { fromBody, presented } = presentedBy(request);
      if (fromBody === undefined && presented !== undefined && !crossSite.allows(request)) return CROSS_SITE;
      if (presented !== undefined) await refreshTokens.revoke(presented);
      return { status: 204, ...(fromBody === undefined ? { cookies: [clearedRefreshCookie(config, authPath)] } : {}) };
    },
  });

  return [refresh, revoke];
}
