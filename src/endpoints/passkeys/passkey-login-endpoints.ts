import type { PasskeyCredentialJSON, PasskeyManager } from '../../identity/passkeys.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import { GatehouseError } from '../../security/errors.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointResponse } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { PasskeyChallengeCookie } from '../passkey-challenge-cookie.ts';
import { problemResponse, signInFailureProblem } from '../problem-response.ts';
import { userAccount } from '../sign-in-limits.ts';
import { PasskeyLogin } from './passkey-schemas.ts';

/** What a passkey sign-in uses: its challenges, the sign-in's rules, and the cookies' settings. */
export interface PasskeyLoginEndpointOptions extends CookieSignInDependencies {
  readonly passkeys: Pick<PasskeyManager, 'authenticationOptions'>;
  readonly signIn: Pick<SignInManager, 'passkeySignIn'>;
}

/**
 * Sign-in with a passkey (docs/reference/http.md): `POST /account/login/passkey/options`, with a
 * challenge bound to this browser by a five-minute cookie, then `POST /account/login/passkey`
 * with the assertion, which SignInManager turns into the same sign-in results as a password: a
 * cookie session, the second step, or 401 GH_SIGNIN_FAILED. Both count on the per-client limit;
 * the assertion also on the account's (the user its passkey names).
 */
export function passkeyLoginEndpoints(options: PasskeyLoginEndpointOptions): readonly Endpoint[] {
  const { passkeys, signIn } = options;
  const cookieSignIn = new CookieSignIn(options);
  const challenges = new PasskeyChallengeCookie(options);

  const challenge = defineEndpoint<unknown>({
    method: 'POST',
    path: '/account/login/passkey/options',
    authorization: { allowAnonymous: true },
    rateLimits: {},
    async handle(request) {
      requireEmptyBody(request.body);
      const { options: requestOptions, challenge: issued, expiresAt } = await passkeys.authenticationOptions();
      const cookies = new CookieList();
      challenges.set(cookies, issued, expiresAt);
      return { status: 200, headers: NO_STORE, cookies: cookies.cookies, body: requestOptions };
    },
  });

  const verification = defineEndpoint<PasskeyLogin>({
    method: 'POST',
    path: '/account/login/passkey',
    authorization: { allowAnonymous: true },
    body: PasskeyLogin,
    rateLimits: { account: accountOf },
    async handle(request) {
      const cookies = new CookieList();
      // The cookie goes whatever happens: its challenge is spent by this attempt.
      const presented = challenges.read(request);
      challenges.clear(cookies);
      // No cookie (or an expired one) is a spent challenge: still counted when the passkey is known.
      const response = request.body.response as unknown as PasskeyCredentialJSON;
      const persistent = request.body.rememberMe === true;
      const result = await signIn.passkeySignIn(presented ?? '', response, {
        ip: request.ip,
        rememberedClient: cookieSignIn.rememberedClient(request),
        grant: cookieSignIn.sessionGrant(request, persistent, 'passkey'),
        language: request.statedLanguage(),
      });
      const answer = (response: EndpointResponse): EndpointResponse => ({ ...response, headers: { ...NO_STORE, ...response.headers }, cookies: cookies.cookies });
      if (result.requiresTwoFactor) {
        cookieSignIn.startTwoFactor(cookies, result.user, persistent, { method: 'passkey' });
        return answer({ status: 200, body: { succeeded: false, requiresTwoFactor: true } });
      }
      if (!result.succeeded) return answer(problemResponse(signInFailureProblem(result)));
      cookieSignIn.setGrantedSession(request, cookies, result);
      return answer({ status: 200, body: { succeeded: true } });
    },
  });

  return [challenge, verification];
}

/**
 * No body, or `{}`: the options name no account (a passkey is discoverable). Checked here, not by
 * a schema, so that anything else is one plain 400 naming the body.
 */
function requireEmptyBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0) {
    throw GatehouseError.validation({ body: [(m) => m.problemNoBodyExpected] });
  }
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
