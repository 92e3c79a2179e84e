import { type Static, Type, type TSchema } from '@sinclair/typebox';
import type { TwoFactorManager } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { User } from '../../store/ports.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { NO_STORE, noStore } from '../no-store.ts';
import { pageResponse } from '../page-response.ts';
import { signedInUser } from '../signed-in-user.ts';
import type { AreaPage } from './account-changes.ts';
import type { accountChanges } from './account-changes.ts';

/** What the phone number for sign-in codes uses. */
export interface PhoneEndpointOptions {
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  readonly twoFactor: Pick<TwoFactorManager, 'textMessagesAvailable' | 'setPhoneNumber' | 'confirmPhoneNumber' | 'removePhoneNumber'>;
  readonly users: Pick<UserManager, 'findById'>;
  /** The endpoints of the account's changes. */
  readonly change: ReturnType<typeof accountChanges>;
}

const PhoneNumber = Type.Object({ phoneNumber: Type.String({ minLength: 1, maxLength: 32 }) }, { additionalProperties: false });
const RequiredCode = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false });
/** An endpoint that reads nothing: any body, none at all included (`fetch(url, { method: 'POST' })`). */
const NO_BODY = {} as TSchema;

/**
 * The signed-in user's phone number for sign-in codes by text message (docs/reference/http.md):
 * its state or its page, a new number (a way into the account: it needs a recent sign-in, decision
 * 0065) confirmed by the code texted to it, and its removal.
 */
export function phoneEndpoints({ pages, twoFactor, users, change }: PhoneEndpointOptions): readonly Endpoint[] {
  const phoneModel = (request: EndpointRequest<unknown>, user: User) => ({
    antiforgeryToken: request.antiforgeryToken(),
    available: twoFactor.textMessagesAvailable,
    phoneNumber: user.phoneNumber,
    phoneConfirmed: user.phoneConfirmed,
  });
  const area: AreaPage = async (request, user) => {
    const model = phoneModel(request, user);
    return (extra) => pages.render('phone', { ...model, notice: extra.notice, errors: extra.errors }, pages.language(request.headers['accept-language']));
  };

  const state = defineEndpoint<undefined>({
    method: 'GET',
    path: '/account/phone',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      const user = await signedInUser(users, request);
      if (!prefersHtml(request.headers.accept)) {
        return { status: 200, headers: NO_STORE, body: { available: twoFactor.textMessagesAvailable, phoneNumber: user.phoneNumber, phoneConfirmed: user.phoneConfirmed } };
      }
      return noStore(pageResponse(pages, pages.render('phone', phoneModel(request, user), pages.language(request.headers['accept-language']))));
    },
  });

  const set = change<Static<typeof PhoneNumber>>({
    path: '/account/phone',
    body: PhoneNumber,
    successStatus: 202,
    area,
    recentSignIn: true,
    run: async (user, body, request) => {
      await twoFactor.setPhoneNumber(user, body.phoneNumber, request.statedLanguage());
      return { status: 202, page: { notice: request.messages().phoneCodeSentNotice } };
    },
  });

  const confirm = change<Static<typeof RequiredCode>>({
    path: '/account/phone/confirm',
    body: RequiredCode,
    successStatus: 204,
    area,
    run: async (user, body, request) => {
      await twoFactor.confirmPhoneNumber(user, body.code, { ip: request.ip });
      return { status: 204, page: { notice: request.messages().phoneConfirmedNotice } };
    },
  });

  const remove = change<unknown>({
    path: '/account/phone/remove',
    body: NO_BODY,
    successStatus: 204,
    area,
    run: async (user, _body, request) => {
      await twoFactor.removePhoneNumber(user);
      return { status: 204, page: { notice: request.messages().phoneRemovedNotice } };
    },
  });

  return [state, set, confirm, remove];
}
