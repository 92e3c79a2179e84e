import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PasskeyCredentialJSON, PasskeyManager } from '../../identity/passkeys.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import { GatehouseError } from '../../security/errors.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import { PasskeyChallengeCookie } from '../../endpoints/passkey-challenge-cookie.ts';
import { type RateLimitDependencies, rateLimited, userAccount } from '../rate-limit.ts';
import { sendSignInFailure } from '../sign-in-failure.ts';
import { PasskeyLogin } from './passkey-schemas.ts';
import { replyCookies } from '../reply-cookies.ts';

/** What a passkey sign-in uses: its challenges, the sign-in's rules, and the cookies. */
export interface PasskeyLoginRouteOptions extends CookieSignInDependencies, RateLimitDependencies {
  readonly passkeys: Pick<PasskeyManager, 'authenticationOptions'>;
  readonly signIn: Pick<SignInManager, 'passkeySignIn'>;
}

const ANONYMOUS = { authorization: { allowAnonymous: true } };

/**
 * Sign-in with a passkey (docs/reference/http.md): the options, with a challenge bound to this
 * browser by a five-minute cookie, then the assertion, which SignInManager turns into the same
 * sign-in results as a password. Both count on the per-IP rate limit; the assertion also on the
 * account's (the user its passkey names).
 */
export async function passkeyLoginRoutes(app: FastifyInstance, options: PasskeyLoginRouteOptions): Promise<void> {
  const { passkeys } = options;
  const cookies = new CookieSignIn(options);
  const challenges = new PasskeyChallengeCookie(options);

  app.post('/account/login/passkey/options', { preValidation: onlyAnEmptyBody, config: ANONYMOUS, ...rateLimited(options) }, async (_request, reply) => {
    const { options, challenge, expiresAt } = await passkeys.authenticationOptions();
    challenges.set(replyCookies(reply), challenge, expiresAt);
    return noStore(reply).send(options);
  });

  app.post<{ Body: PasskeyLogin }>(
    '/account/login/passkey',
    { schema: { body: PasskeyLogin }, config: ANONYMOUS, ...rateLimited(options, { account: (request) => accountOf(request.body as PasskeyLogin | undefined) }) },
    async (request, reply) => {
      noStore(reply);
      // The cookie goes whatever happens: its challenge is spent by this attempt.
      const challenge = challenges.read(request);
      challenges.clear(replyCookies(reply));
      // No cookie (or an expired one) is a spent challenge: still counted when the passkey is known.
      const response = request.body.response as unknown as PasskeyCredentialJSON;
      const persistent = request.body.rememberMe === true;
      const result = await options.signIn.passkeySignIn(challenge ?? '', response, {
        ip: request.ip,
        rememberedClient: cookies.rememberedClient(request),
        grant: cookies.sessionGrant(request, persistent, 'passkey'),
      });
      if (result.requiresTwoFactor) {
        cookies.startTwoFactor(replyCookies(reply), result.user, persistent, { method: 'passkey' });
        return reply.send({ succeeded: false, requiresTwoFactor: true });
      }
      if (!result.succeeded) return sendSignInFailure(reply, result);
      cookies.setGrantedSession(request, replyCookies(reply), result);
      return reply.send({ succeeded: true });
    },
  );
}

/**
 * The account a passkey sign-in names, for its rate limit: the user of its user handle (our
 * passkeys' handles are user ids), sharing the budget of that user's second steps and account
 * operations; else the credential id.
 */
function accountOf(body: PasskeyLogin | undefined): string | undefined {
  const response = body?.response;
  if (response === undefined) return undefined;
  const handle = response.response.userHandle === undefined ? '' : Buffer.from(response.response.userHandle, 'base64url').toString('utf8');
  return /^[1-9][0-9]{0,14}$/.test(handle) ? userAccount(Number(handle)) : `passkey:${response.id}`;
}

/** No body, or `{}`. */
async function onlyAnEmptyBody(request: FastifyRequest): Promise<void> {
  const { body } = request;
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0) {
    throw GatehouseError.validation({ body: ['This endpoint takes no body, or {}.'] });
  }
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
