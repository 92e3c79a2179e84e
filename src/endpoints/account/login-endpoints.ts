import { type Static, Type } from '@sinclair/typebox';
import type { Config } from '../../config/config.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { FieldErrors } from '../../security/errors.ts';
import { GatehouseError } from '../../security/errors.ts';
import { clientKey } from '../client-key.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type EndpointResponse } from '../endpoint.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import { problemResponse, signInFailureProblem } from '../problem-response.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { NO_STORE } from '../no-store.ts';
import { type AccountRedirects, returnUrlOf, withReturnUrl } from './account-paths.ts';
import { PASSWORD_FIELD_MAX } from './password-field.ts';

/** What the login page and the cookie sign-in use. */
export interface LoginEndpointsOptions {
  readonly config: Pick<Config, 'oidcProviders'>;
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
  readonly paths: AccountRedirects;
  readonly signIn: Pick<SignInManager, 'passwordSignIn'>;
  readonly cookies: CookieSignIn;
}

const LoginRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    userName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_FIELD_MAX }),
    // A form's checkbox sends "true" when ticked and nothing otherwise.
    rememberMe: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true')])),
  },
  { additionalProperties: false },
);
type LoginRequest = Static<typeof LoginRequest>;

/** `ReturnUrl` (the cookie scheme's name) or `returnUrl`, kept only when it is a local path. */
const ReturnQuery = Type.Object({
  ReturnUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  returnUrl: Type.Optional(Type.String({ maxLength: 2048 })),
});

/** Why the login page is shown again: what the user typed and what was wrong with it. */
interface FailedLogin {
  readonly login?: string | undefined;
  readonly errors: FieldErrors;
  readonly unconfirmedEmail?: boolean;
}

/**
 * `GET /account/login`: the login page for a browser, the external providers for an API client.
 * `POST /account/login`: a password sign-in that sets the auth cookie (JSON `{succeeded}`, or a
 * form's 303 to the return URL), or starts the second step; it counts against the sign-in limits,
 * per client and per the account it names. A refused form gets the page again with why.
 */
export function loginEndpoints({ config, pages, paths, signIn, cookies }: LoginEndpointsOptions): Endpoint[] {
  const providers = config.oidcProviders.map((provider) => provider.name);

  const loginPage = (request: Pick<EndpointRequest, 'query' | 'headers' | 'antiforgeryToken'>, failed?: FailedLogin) =>
    pages.render(
      'login',
      {
        antiforgeryToken: request.antiforgeryToken(),
        returnUrl: returnUrlOf(request) ?? undefined,
        providers,
        ...(failed ? { login: failed.login, errors: failed.errors, unconfirmedEmail: failed.unconfirmedEmail ?? false } : {}),
      },
      pages.language(request.headers['accept-language']),
    );

  const page = defineEndpoint({
    method: 'GET',
    path: '/account/login',
    authorization: { allowAnonymous: true },
    query: ReturnQuery,
    async handle(request) {
      if (!prefersHtml(request.headers.accept)) return { status: 200, body: { providers } };
      return pageResponse(pages, loginPage(request));
    },
  });

  const passwordSignIn = defineEndpoint<LoginRequest>({
    method: 'POST',
    path: '/account/login',
    authorization: { allowAnonymous: true },
    body: LoginRequest,
    query: ReturnQuery,
    forms: true,
    rateLimits: { account: loginOf },
    formErrors: (request, errors) => pageResponse(pages, loginPage(request, { login: loginOf(request.body), errors })),
    async handle(request): Promise<EndpointResponse> {
      const { body } = request;
      const login = loginOf(body);
      if (login === undefined) throw GatehouseError.validation({ email: [(m) => m.problemEnterLogin] });
      const persistent = body.rememberMe === true || body.rememberMe === 'true';
      const result = await signIn.passwordSignIn(login, body.password, {
        ip: request.ip,
        clientKey: clientKey(request.ip),
        rememberedClient: cookies.rememberedClient(request),
        grant: cookies.sessionGrant(request, persistent, 'password'),
        language: request.statedLanguage(),
      });
      const answerCookies = new CookieList();
      if (result.requiresTwoFactor) {
        cookies.startTwoFactor(answerCookies, result.user, persistent, { method: 'two-factor' });
        const set = { headers: NO_STORE, cookies: answerCookies.cookies };
        if (request.form) return seeOther(withReturnUrl(paths.twoFactorLogin, returnUrlOf(request)), set);
        return { status: 200, ...set, body: { succeeded: false, requiresTwoFactor: true } };
      }
      if (!result.succeeded) {
        if (!request.form) return problemResponse(signInFailureProblem(result));
        const messages = request.messages();
        const message = result.isNotAllowed ? messages.loginConfirmEmailFirst : messages.loginInvalidAttempt;
        return pageResponse(pages, loginPage(request, { login, errors: { '': [message] }, unconfirmedEmail: result.isNotAllowed === true }), 401);
      }
      cookies.setGrantedSession(request, answerCookies, result);
      const set = { headers: NO_STORE, cookies: answerCookies.cookies };
      if (request.form) return seeOther(returnUrlOf(request) ?? paths.profile, set);
      return { status: 200, ...set, body: { succeeded: true } };
    },
  });

  return [page, passwordSignIn];
}

/** The account a login names: its e-mail, else its user name (undefined for a body that failed validation). */
function loginOf(body: Partial<LoginRequest> | undefined): string | undefined {
  const login = body?.email ?? body?.userName;
  return typeof login === 'string' ? login : undefined;
}
