import { type Static, Type } from '@sinclair/typebox';
import type { Config } from '../../config/config.ts';
import { signInClient } from '../../identity/sign-in-client.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import { normalizeSixDigits } from '../../identity/two-factor/totp.ts';
import { GatehouseError } from '../../security/errors.ts';
import { clientKey } from '../client-key.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { problemResponse, signInFailureProblem } from '../problem-response.ts';
import { OrganizationChoice } from './organization-choice.ts';
import { refreshCookie } from './refresh-cookie.ts';

/** What the token endpoint uses: the sign-in (which opens the refresh family it grants), and where the token endpoints are (the cookie's path). */
export interface TokenEndpointOptions {
  readonly config: Pick<Config, 'production'>;
  /** The token endpoints' path, `/auth` under the mount point: the refresh cookie's. */
  readonly authPath: string;
  readonly signIn: Pick<SignInManager, 'passwordSignIn' | 'twoFactorSignIn'>;
}

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;

export const TokenRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    userName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_FIELD_MAX }),
    twoFactorCode: Type.Optional(Type.String({ maxLength: 64 })),
    setCookie: Type.Optional(Type.Boolean()),
    organizationId: Type.Optional(OrganizationChoice),
  },
  { additionalProperties: false },
);
type TokenRequest = Static<typeof TokenRequest>;

/**
 * `POST /auth/token`: a password sign-in that answers an access token and the first refresh
 * token of a new family (in the body, or as the `gh.refresh` cookie with `setCookie:true`).
 * Failures are sign-in results: 401 with `succeeded:false` and only the flags the rule of
 * docs/reference/http.md allows; `requiresTwoFactor` asks for `twoFactorCode` (a TOTP or recovery code).
 * It counts against the sign-in limits, per client and per the account it names.
 */
export function tokenEndpoint({ config, authPath, signIn }: TokenEndpointOptions): Endpoint {
  return defineEndpoint<TokenRequest>({
    method: 'POST',
    path: '/auth/token',
    authorization: { allowAnonymous: true },
    body: TokenRequest,
    rateLimits: { account: loginOf },
    async handle(request) {
      const { body } = request;
      const login = loginOf(body);
      if (login === undefined) throw GatehouseError.validation({ email: [(m) => m.problemEnterLogin] });
      const context = { ip: request.ip, clientKey: clientKey(request.ip), language: request.statedLanguage() };
      const client = signInClient(request.ip, request.headers['user-agent']);
      const organization = body.organizationId === undefined ? {} : { organizationId: body.organizationId };
      let result = await signIn.passwordSignIn(login, body.password, { ...context, grant: { kind: 'tokens', method: 'password', client, ...organization } });
      // The second factor comes in the same request: an authenticator code, or a recovery code.
      const { twoFactorCode } = body;
      if (result.requiresTwoFactor && twoFactorCode !== undefined && twoFactorCode !== '') {
        const pending = { userId: result.user.id, securityStamp: result.user.securityStamp };
        const factor = normalizeSixDigits(twoFactorCode) !== null ? 'Authenticator' : 'Recovery';
        result = await signIn.twoFactorSignIn(pending, { provider: factor, code: twoFactorCode }, { ...context, grant: { kind: 'tokens', method: 'two-factor', client, ...organization } });
      }
      if (!result.succeeded) return problemResponse(signInFailureProblem(result));
      const pair = result.tokens;
      if (pair === undefined) throw new Error('The sign-in was granted no tokens.');
      const answer = { accessToken: pair.accessToken, tokenType: 'Bearer', expiresIn: pair.expiresIn };
      if (body.setCookie === true) {
        return { status: 200, headers: NO_STORE, cookies: [refreshCookie(config, authPath, pair.refreshToken, pair.refreshExpiresAt)], body: answer };
      }
      return { status: 200, headers: NO_STORE, body: { ...answer, refreshToken: pair.refreshToken } };
    },
  });
}

/** The account a token request names: its e-mail, else its user name. */
function loginOf(body: TokenRequest): string | undefined {
  return body.email ?? body.userName;
}
