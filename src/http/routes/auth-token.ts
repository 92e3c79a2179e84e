import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { signInClient } from '../../identity/sign-in-client.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import { normalizeSixDigits } from '../../identity/two-factor/totp.ts';
import { GatehouseError } from '../../security/errors.ts';
import { clientKey } from '../client-key.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { type RateLimitDependencies, rateLimited } from '../rate-limit.ts';
import { setRefreshCookie } from '../refresh-cookie.ts';
import { sendSignInFailure } from '../sign-in-failure.ts';

/** What the token endpoint uses: the sign-in (which opens the refresh family it grants), and where `/auth` is (the cookie's path). */
export interface AuthTokenRouteOptions extends RateLimitDependencies {
  readonly paths: MembershipPaths;
  readonly signIn: Pick<SignInManager, 'passwordSignIn' | 'twoFactorSignIn'>;
}

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;

const TokenRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    userName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_FIELD_MAX }),
    twoFactorCode: Type.Optional(Type.String({ maxLength: 64 })),
    setCookie: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/**
 * `POST /auth/token`: a password sign-in that answers an access token and the first refresh
 * token of a new family (in the body, or as the `gh.refresh` cookie with `setCookie:true`).
 * Failures are sign-in results: 401 with `succeeded:false` and only the flags the rule of
 * docs/reference/http.md allows; `requiresTwoFactor` asks for `twoFactorCode` (a TOTP or recovery code).
 */
export async function authTokenRoutes(app: FastifyInstance, options: AuthTokenRouteOptions): Promise<void> {
  const { config, signIn, paths } = options;
  app.post<{ Body: Static<typeof TokenRequest> }>(
    '/auth/token',
    {
      schema: { body: TokenRequest },
      config: { authorization: { allowAnonymous: true } },
      ...rateLimited(options, { account: (request) => loginOf(request.body as Static<typeof TokenRequest>) }),
    },
    async (request, reply) => {
      const { password } = request.body;
      const login = loginOf(request.body);
      if (login === undefined) {
        throw GatehouseError.validation({ email: ['Enter the e-mail or the user name.'] });
      }
      const context = { ip: request.ip, clientKey: clientKey(request.ip) };
      const client = signInClient(request.ip, request.headers['user-agent']);
      let result = await signIn.passwordSignIn(login, password, { ...context, grant: { kind: 'tokens', method: 'password', client } });
      // The second factor comes in the same request: an authenticator code, or a recovery code.
      const { twoFactorCode } = request.body;
      if (result.requiresTwoFactor && twoFactorCode !== undefined && twoFactorCode !== '') {
        const pending = { userId: result.user.id, securityStamp: result.user.securityStamp };
        const factor = normalizeSixDigits(twoFactorCode) !== null ? 'Authenticator' : 'Recovery';
        result = await signIn.twoFactorSignIn(pending, { provider: factor, code: twoFactorCode }, { ...context, grant: { kind: 'tokens', method: 'two-factor', client } });
      }
      if (!result.succeeded) return sendSignInFailure(reply, result);
      const pair = result.tokens;
      if (pair === undefined) throw new Error('The sign-in was granted no tokens.');
      reply.header('cache-control', 'no-store');
      const body = { accessToken: pair.accessToken, tokenType: 'Bearer', expiresIn: pair.expiresIn };
      if (request.body.setCookie === true) {
        setRefreshCookie(reply, config, paths.auth, pair.refreshToken, pair.refreshExpiresAt);
        return reply.send(body);
      }
      return reply.send({ ...body, refreshToken: pair.refreshToken });
    },
  );
  // The limiter's Redis connection ends with the app; closing twice is harmless.
}

/** The account a token request names: its e-mail, else its user name. */
function loginOf(body: Static<typeof TokenRequest>): string | undefined {
  return body.email ?? body.userName;
}
