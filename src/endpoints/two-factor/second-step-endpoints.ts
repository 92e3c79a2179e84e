import { type Static, Type } from '@sinclair/typebox';
import { isLivePending, type SecondFactor, type SignInManager } from '../../identity/sign-in-manager.ts';
import type { TwoFactorManager } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { Html } from '../../pages/html.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import { type FieldErrors, GatehouseError } from '../../security/errors.ts';
import { problem } from '../../security/problem-details.ts';
import { ANONYMOUS } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import type { BrowserRequest, CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRateLimits, type EndpointRequest, type EndpointResponse } from '../endpoint.ts';
import { NO_STORE, noStore } from '../no-store.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import { problemResponse, signInFailureProblem } from '../problem-response.ts';
import { userAccount } from '../sign-in-limits.ts';
import { Flag, isOn, ReturnQuery, returnUrlOf } from './answers.ts';

/** What the second step of a browser sign-in uses. */
export interface SecondStepEndpointOptions {
  /** The login page, where a browser without a pending second step goes, and the profile, where a finished one goes by default. */
  readonly paths: { readonly login: string; readonly profile: string };
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  readonly cookies: CookieSignIn;
  readonly signIn: Pick<SignInManager, 'twoFactorSignIn'>;
  readonly twoFactor: Pick<TwoFactorManager, 'canTextSignInCode' | 'sendSignInCode'>;
  readonly users: Pick<UserManager, 'findById'>;
}

const Code = Type.String({ minLength: 1, maxLength: 64 });
const TwoFactorLogin = Type.Object(
  {
    code: Code,
    provider: Type.Optional(Type.Union([Type.Literal('Authenticator'), Type.Literal('Email'), Type.Literal('Phone')])),
    rememberMe: Type.Optional(Flag),
    rememberClient: Type.Optional(Flag),
  },
  { additionalProperties: false },
);
const RecoveryLogin = Type.Object({ recoveryCode: Code, rememberMe: Type.Optional(Flag) }, { additionalProperties: false });
const SendCode = Type.Object({ provider: Type.Union([Type.Literal('Email'), Type.Literal('Phone')]) }, { additionalProperties: false });

/** What the step asks besides the code: a lasting session, and skipping the step on this browser from now on. */
interface StepFlags {
  readonly rememberMe?: boolean | 'true' | undefined;
  readonly rememberClient?: boolean | 'true' | undefined;
}

/** What the login page's second step adds to it: the errors of a refused code, or the notice of a sent one. */
interface LoginExtra {
  readonly errors?: FieldErrors;
  readonly notice?: string;
}

/**
 * The second step of a browser sign-in (docs/reference/http.md), which the two-factor cookie of
 * the first step authorizes (the endpoints are anonymous): the page or the providers, a code, a
 * recovery code, and a code sent by mail or text message. Each step counts on the budget of the
 * user the cookie names, which the account operations checking a code share.
 */
export function secondStepEndpoints({ paths, pages, cookies, signIn, twoFactor, users }: SecondStepEndpointOptions): readonly Endpoint[] {
  const rateLimits: EndpointRateLimits = {
    account: (_body, request) => {
      const pending = cookies.pendingTwoFactor(request);
      return pending === null ? undefined : userAccount(pending.userId);
    },
  };
  /** Whether the pending sign-in's user can get a code by text message: only then is it offered. */
  const phoneOffered = async (request: BrowserRequest): Promise<boolean> => {
    const pending = cookies.pendingTwoFactor(request);
    const user = pending === null ? null : await users.findById(pending.userId);
    return user !== null && twoFactor.canTextSignInCode(user);
  };
  const loginPage = async (request: EndpointRequest<unknown>, extra: LoginExtra = {}): Promise<Html> => {
    const returnUrl = returnUrlOf(request.query);
    return pages.render(
      'twoFactorLogin',
      {
        antiforgeryToken: request.antiforgeryToken(),
        phoneAvailable: await phoneOffered(request),
        ...(returnUrl ? { returnUrl } : {}),
        ...extra,
      },
      pages.language(request.headers['accept-language']),
    );
  };
  const notPending = (request: EndpointRequest<unknown>): EndpointResponse => {
    if (request.form || prefersHtml(request.headers.accept)) return seeOther(paths.login);
    // A sign-in result like any other failure (docs/reference/http.md): problem+json with succeeded:false.
    return problemResponse(problem('GH_SIGNIN_FAILED', (m) => m.problemNoPendingTwoFactor, { succeeded: false }));
  };
  const formErrors = async (request: EndpointRequest<unknown>, errors: FieldErrors) => pageResponse(pages, await loginPage(request, { errors }));

  /** The step's answer: the auth cookie (and the remember-client cookie when asked), or a failure counted toward lockout. */
  const secondStep = async (request: EndpointRequest<unknown>, factor: SecondFactor, flags: StepFlags): Promise<EndpointResponse> => {
    const pending = cookies.pendingTwoFactor(request);
    if (pending === null) return notPending(request);
    const persistent = pending.persistent || isOn(flags.rememberMe);
    // A provider's login matched by e-mail at the first step is linked only once both steps pass.
    const result = await signIn.twoFactorSignIn(pending, factor, {
      ip: request.ip,
      link: pending.link,
      grant: cookies.sessionGrant(request, persistent, pending.method ?? 'two-factor'),
      language: request.statedLanguage(),
    });
    if (!result.succeeded) {
      if (!request.form) return problemResponse(signInFailureProblem(result));
      const messages = request.messages();
      const message = result.isLockedOut ? messages.twoFactorLockedOut : messages.twoFactorCodeNotValid;
      return pageResponse(pages, await loginPage(request, { errors: { '': [message] } }), 401);
    }
    const set = new CookieList();
    cookies.setGrantedSession(request, set, result);
    if (isOn(flags.rememberClient)) cookies.rememberClient(set, result.user);
    if (request.form) return seeOther(returnUrlOf(request.query) ?? paths.profile, { headers: NO_STORE, cookies: set.cookies });
    return { status: 200, headers: NO_STORE, cookies: set.cookies, body: { succeeded: true } };
  };

  const page = defineEndpoint<undefined>({
    method: 'GET',
    path: '/account/login/2fa',
    authorization: ANONYMOUS,
    query: ReturnQuery,
    async handle(request) {
      if (cookies.pendingTwoFactor(request) === null) return notPending(request);
      if (!prefersHtml(request.headers.accept)) return { status: 200, headers: NO_STORE, body: { requiresTwoFactor: true, providers: providers(await phoneOffered(request)) } };
      return noStore(pageResponse(pages, await loginPage(request)));
    },
  });

  const code = defineEndpoint<Static<typeof TwoFactorLogin>>({
    method: 'POST',
    path: '/account/login/2fa',
    authorization: ANONYMOUS,
    query: ReturnQuery,
    body: TwoFactorLogin,
    forms: true,
    formErrors,
    rateLimits,
    handle: (request) => secondStep(request, { provider: request.body.provider ?? 'Authenticator', code: request.body.code }, request.body),
  });

  const recoveryCode = defineEndpoint<Static<typeof RecoveryLogin>>({
    method: 'POST',
    path: '/account/login/recovery',
    authorization: ANONYMOUS,
    query: ReturnQuery,
    body: RecoveryLogin,
    forms: true,
    formErrors,
    rateLimits,
    handle: (request) => secondStep(request, { provider: 'Recovery', code: request.body.recoveryCode }, request.body),
  });

  const sendCode = defineEndpoint<Static<typeof SendCode>>({
    method: 'POST',
    path: '/account/login/2fa/send',
    authorization: ANONYMOUS,
    query: ReturnQuery,
    body: SendCode,
    forms: true,
    formErrors,
    successStatus: 202,
    rateLimits,
    async handle(request) {
      const pending = cookies.pendingTwoFactor(request);
      if (pending === null) return notPending(request);
      const user = await users.findById(pending.userId);
      // A stale step sends nothing, and says no more than a sent code would.
      const sent = user !== null && isLivePending(pending, user) && (await twoFactor.sendSignInCode(user, request.body.provider, pages.language(request.headers['accept-language'])));
      if (!sent && request.body.provider === 'Phone') throw GatehouseError.validation({ provider: [(m) => m.problemNoPhoneForCode] });
      if (request.form) return noStore(pageResponse(pages, await loginPage(request, { notice: request.messages().twoFactorCodeSentNotice }), 202));
      return { status: 202, headers: NO_STORE };
    },
  });

  return [page, code, recoveryCode, sendCode];
}

function providers(phoneAvailable: boolean): string[] {
  return phoneAvailable ? ['Authenticator', 'Email', 'Phone'] : ['Authenticator', 'Email'];
}
