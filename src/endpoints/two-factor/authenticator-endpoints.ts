import { type Static, Type } from '@sinclair/typebox';
import type { TwoFactorManager } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { User } from '../../store/ports.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { NO_STORE, noStore } from '../no-store.ts';
import { pageResponse } from '../page-response.ts';
import { signedInUser } from '../signed-in-user.ts';
import type { AreaPage } from './account-changes.ts';
import type { accountChanges } from './account-changes.ts';

/** What the authenticator's set-up uses. */
export interface AuthenticatorEndpointOptions {
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  readonly cookies: CookieSignIn;
  readonly twoFactor: Pick<TwoFactorManager, 'countRecoveryCodes' | 'pendingSetUp' | 'setUpAuthenticator' | 'enable' | 'disable' | 'regenerateRecoveryCodes'>;
  readonly users: Pick<UserManager, 'findById'>;
  /** The endpoints of the account's changes. */
  readonly change: ReturnType<typeof accountChanges>;
}

const Code = Type.String({ minLength: 1, maxLength: 64 });
const OptionalCode = Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });
const RequiredCode = Type.Object({ code: Code }, { additionalProperties: false });

// A new authenticator key is a new second factor, the first one included: a thief's key turned
// on would keep the owner out. Setting it up, replacing it, turning two-factor off and new
// recovery codes all need a recent sign-in (decision 0065).
const ADDS_A_WAY_IN = true;

/**
 * The signed-in user's authenticator (docs/reference/http.md): its state or its page, a new key,
 * turning two-factor on and off, and new recovery codes.
 */
export function authenticatorEndpoints({ pages, cookies, twoFactor, users, change }: AuthenticatorEndpointOptions): readonly Endpoint[] {
  const authenticatorModel = async (request: EndpointRequest<unknown>, user: User) => ({
    antiforgeryToken: request.antiforgeryToken(),
    twoFactorEnabled: user.twoFactorEnabled,
    ...(user.twoFactorEnabled ? { remainingRecoveryCodes: await twoFactor.countRecoveryCodes(user) } : { setUp: await twoFactor.pendingSetUp(user) }),
  });
  const area: AreaPage = async (request, user) => {
    const model = await authenticatorModel(request, user);
    return (extra) => pages.render('authenticator', { ...model, ...extra }, pages.language(request.headers['accept-language']));
  };

  const state = defineEndpoint<undefined>({
    method: 'GET',
    path: '/account/2fa',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      const user = await signedInUser(users, request);
      if (!prefersHtml(request.headers.accept)) {
        const recoveryCodesLeft = user.twoFactorEnabled ? await twoFactor.countRecoveryCodes(user) : 0;
        return { status: 200, headers: NO_STORE, body: { twoFactorEnabled: user.twoFactorEnabled, recoveryCodesLeft } };
      }
      return noStore(pageResponse(pages, pages.render('authenticator', await authenticatorModel(request, user), pages.language(request.headers['accept-language']))));
    },
  });

  const setUp = change<Static<typeof OptionalCode>>({
    path: '/account/2fa/authenticator',
    body: OptionalCode,
    area,
    recentSignIn: ADDS_A_WAY_IN,
    run: async (user, body, request) => ({ status: 200, body: await twoFactor.setUpAuthenticator(user, body.code, { ip: request.ip }) }),
  });

  // Turning two-factor on or off is a security change: every session ends, and the one that asked
  // goes on under the new stamp (as with a password change), opened as it was.
  const enable = change<Static<typeof RequiredCode>>({
    path: '/account/2fa/enable',
    body: RequiredCode,
    area,
    run: async (user, body, request) => {
      const { recoveryCodes, session } = await twoFactor.enable(user, body.code, { ip: request.ip, session: cookies.presented(request) });
      const renewed = new CookieList();
      if (session !== null) cookies.setSession(request, renewed, session);
      return { status: 200, body: { recoveryCodes }, page: { recoveryCodes, notice: request.messages().authenticatorOnNotice }, cookies: renewed.cookies };
    },
  });

  const disable = change<Static<typeof RequiredCode>>({
    path: '/account/2fa/disable',
    body: RequiredCode,
    successStatus: 204,
    area,
    recentSignIn: ADDS_A_WAY_IN,
    run: async (user, body, request) => {
      const session = await twoFactor.disable(user, body.code, { ip: request.ip, session: cookies.presented(request) });
      const renewed = new CookieList();
      if (session !== null) cookies.setSession(request, renewed, session);
      return { status: 204, page: { notice: request.messages().authenticatorOffNotice }, cookies: renewed.cookies };
    },
  });

  const recoveryCodes = change<Static<typeof RequiredCode>>({
    path: '/account/2fa/recovery-codes',
    body: RequiredCode,
    area,
    recentSignIn: ADDS_A_WAY_IN,
    run: async (user, body, request) => {
      const codes = await twoFactor.regenerateRecoveryCodes(user, body.code, { ip: request.ip });
      return { status: 200, body: { recoveryCodes: codes }, page: { recoveryCodes: codes, notice: request.messages().authenticatorNewCodesNotice } };
    },
  });

  return [state, setUp, enable, disable, recoveryCodes];
}
