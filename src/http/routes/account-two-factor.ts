import { membershipPolicies } from '../membership-policies.ts';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountLockedError } from '../../identity/credential-checks.ts';
import { isLivePending, type SecondFactor, type SignInManager } from '../../identity/sign-in-manager.ts';
import { TwoFactorError, type TwoFactorManager } from '../../identity/two-factor/two-factor-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import { type FieldErrors, GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';
import { accountLockedError } from '../../endpoints/account-locked.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import { jsonOrForm } from '../form-posts.ts';
import { isFormPost, seeOther, sendPage, wantsPage } from '../negotiation.ts';
import type { Html } from '../../pages/html.ts';
import { userIdOf } from '../pipeline.ts';
import { formBodiesPlugin } from '../plugins/form-bodies.ts';
import { problem, sendProblem } from '../problem.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../../endpoints/recent-sign-in-check.ts';
import { type RateLimitDependencies, rateLimited, userAccount } from '../rate-limit.ts';
import { localReturnUrl } from '../return-url.ts';
import { sendSignInFailure } from '../sign-in-failure.ts';
import { replyCookies } from '../reply-cookies.ts';

/** What two-factor sign-in and set-up use: the second step, the two-factor use cases, the cookies, and where the routes are. */
export interface AccountTwoFactorRouteOptions extends CookieSignInDependencies, RateLimitDependencies, RecentSignInCheckDependencies {
  readonly paths: MembershipPaths;
  readonly signIn: Pick<SignInManager, 'twoFactorSignIn'>;
  readonly twoFactor: TwoFactorManager;
  readonly users: Pick<UserManager, 'findById'>;
}

const Flag = Type.Union([Type.Boolean(), Type.Literal('true')]);
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
const SendCode = Type.Object({ provider: Type.Union([Type.Literal('Email'), Type.Literal('Phone')]) }, { additionalProperties: false });
const RecoveryLogin = Type.Object({ recoveryCode: Code, rememberMe: Type.Optional(Flag) }, { additionalProperties: false });
const OptionalCode = Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });
const RequiredCode = Type.Object({ code: Code }, { additionalProperties: false });
/** An endpoint that reads nothing: any body, none at all included (`fetch(url, { method: 'POST' })`). */
const NO_BODY = {};
/** The success status of each account change answered with no body (as JSON; a form post gets its page). */
const CHANGE_STATUSES: Readonly<Record<string, 202 | 204>> = {
  '/account/2fa/disable': 204,
  '/account/phone': 202,
  '/account/phone/confirm': 204,
  '/account/phone/remove': 204,
};
const PhoneNumber = Type.Object({ phoneNumber: Type.String({ minLength: 1, maxLength: 32 }) }, { additionalProperties: false });
const ReturnQuery = Type.Object({ ReturnUrl: Type.Optional(Type.String({ maxLength: 2048 })), returnUrl: Type.Optional(Type.String({ maxLength: 2048 })) });
type ReturnQuery = Static<typeof ReturnQuery>;

/** What an action adds to its page. */
interface PageExtra {
  readonly recoveryCodes?: readonly string[];
  readonly notice?: string;
  readonly errors?: FieldErrors;
}

const AUTHENTICATED = { authorization: { authorize: [{ policy: membershipPolicies.user }] } };
const ANONYMOUS = { authorization: { allowAnonymous: true } };

const REFUSALS: Record<TwoFactorError['reason'], FieldErrors> = {
  'code-required': { code: ['Enter a current code from your authenticator app to replace its key.'] },
  'invalid-code': { code: ['The code is not valid. Enter the current code.'] },
  'invalid-phone-number': { phoneNumber: ['Enter the number in international format, such as +14155550123.'] },
  'no-pending-key': { code: ['Set up the authenticator first.'] },
  'phone-unavailable': { phoneNumber: ['Text messages are not available.'] },
};

/**
 * Two-factor sign-in (docs/reference/http.md): the second step of a browser sign-in, which the
 * two-factor cookie of the first step authorizes (the pipeline lets it through anonymously), and
 * the signed-in user's authenticator, recovery codes and phone number.
 */
export async function accountTwoFactorRoutes(app: FastifyInstance, options: AccountTwoFactorRouteOptions): Promise<void> {
  const { twoFactor, signIn, users, paths } = options;
  const cookies = new CookieSignIn(options);
  const recent = new RecentSignInCheck(options, cookies);
  await app.register(formBodiesPlugin);

  const pendingUser = (request: FastifyRequest): string | undefined => {
    const pending = cookies.pendingTwoFactor(request);
    return pending === null ? undefined : userAccount(pending.userId);
  };
  const limited = rateLimited(options, { account: pendingUser });
  // The account operations that check a code count on the signed-in user's budget, which the
  // second steps of the user's sign-ins share.
  const signedInLimited = rateLimited(options, { account: (request) => userAccount(userIdOf(request)) });
  /** Whether the pending sign-in's user can get a code by text message: only then is it offered. */
  const phoneOffered = async (request: FastifyRequest): Promise<boolean> => {
    const pending = cookies.pendingTwoFactor(request);
    const user = pending === null ? null : await users.findById(pending.userId);
    return user !== null && twoFactor.canTextSignInCode(user);
  };
  const renderLogin = async (request: FastifyRequest<{ Querystring: ReturnQuery }>, reply: FastifyReply, extra: { errors?: FieldErrors; notice?: string } = {}) =>
    app.pages.render('twoFactorLogin', {
      antiforgeryToken: app.antiforgeryToken(request, reply),
      phoneAvailable: await phoneOffered(request),
      ...(returnUrlOf(request.query) ? { returnUrl: returnUrlOf(request.query) as string } : {}),
      ...extra,
    });
  const notPending = (request: FastifyRequest, reply: FastifyReply) => {
    if (isFormPost(request) || wantsPage(request)) return seeOther(reply, paths.login);
    // A sign-in result like any other failure (docs/reference/http.md): problem+json with succeeded:false.
    return sendProblem(reply, problem('GH_SIGNIN_FAILED', 'There is no pending two-factor sign-in: sign in with the password first.', { succeeded: false }));
  };

  app.get<{ Querystring: ReturnQuery }>('/account/login/2fa', { schema: { querystring: ReturnQuery }, config: ANONYMOUS }, async (request, reply) => {
    if (cookies.pendingTwoFactor(request) === null) return notPending(request, reply);
    if (!wantsPage(request)) return noStore(reply).send({ requiresTwoFactor: true, providers: providers(await phoneOffered(request)) });
    return sendPage(noStore(reply), await renderLogin(request, reply));
  });

  /** The second step's answer: the auth cookie (and the remember-client cookie when asked), or a failure counted toward lockout. */
  const secondStep = async (
    request: FastifyRequest<{ Querystring: ReturnQuery }>,
    reply: FastifyReply,
    factor: SecondFactor,
    options: { rememberMe?: boolean | 'true' | undefined; rememberClient?: boolean | 'true' | undefined },
  ) => {
    const pending = cookies.pendingTwoFactor(request);
    if (pending === null) return notPending(request, reply);
    const persistent = pending.persistent || isOn(options.rememberMe);
    // A provider's login matched by e-mail at the first step is linked only once both steps pass.
    const result = await signIn.twoFactorSignIn(pending, factor, {
      ip: request.ip,
      link: pending.link,
      grant: cookies.sessionGrant(request, persistent, pending.method ?? 'two-factor'),
    });
    if (!result.succeeded) {
      if (!isFormPost(request)) return sendSignInFailure(reply, result);
      const message = result.isLockedOut ? 'The account is locked for now. Try again later.' : 'The code is not valid.';
      return sendPage(reply, await renderLogin(request, reply, { errors: { '': [message] } }), 401);
    }
    cookies.setGrantedSession(request, replyCookies(reply), result);
    if (isOn(options.rememberClient)) cookies.rememberClient(replyCookies(reply), result.user);
    if (isFormPost(request)) return seeOther(noStore(reply), returnUrlOf(request.query) ?? paths.profile);
    return noStore(reply).send({ succeeded: true });
  };

  app.post<{ Body: Static<typeof TwoFactorLogin>; Querystring: ReturnQuery }>(
    '/account/login/2fa',
    { schema: { body: TwoFactorLogin, querystring: ReturnQuery }, attachValidation: true, config: ANONYMOUS, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        () => secondStep(request, reply, { provider: request.body.provider ?? 'Authenticator', code: request.body.code }, request.body),
        (errors) => renderLogin(request, reply, { errors }),
      ),
  );

  app.post<{ Body: Static<typeof RecoveryLogin>; Querystring: ReturnQuery }>(
    '/account/login/recovery',
    { schema: { body: RecoveryLogin, querystring: ReturnQuery }, attachValidation: true, config: ANONYMOUS, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        () => secondStep(request, reply, { provider: 'Recovery', code: request.body.recoveryCode }, request.body),
        (errors) => renderLogin(request, reply, { errors }),
      ),
  );

  app.post<{ Body: Static<typeof SendCode>; Querystring: ReturnQuery }>(
    '/account/login/2fa/send',
    { schema: { body: SendCode, querystring: ReturnQuery }, attachValidation: true, config: { ...ANONYMOUS, successStatus: 202 }, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          const pending = cookies.pendingTwoFactor(request);
          if (pending === null) return notPending(request, reply);
          const user = await users.findById(pending.userId);
          // A stale step sends nothing, and says no more than a sent code would.
          const sent = user !== null && isLivePending(pending, user) && (await twoFactor.sendSignInCode(user, request.body.provider));
          if (!sent && request.body.provider === 'Phone') throw GatehouseError.validation({ provider: ['No confirmed phone number can receive a code.'] });
          if (isFormPost(request)) return sendPage(noStore(reply), await renderLogin(request, reply, { notice: 'We sent you a code. It works once, for five minutes.' }), 202);
          return noStore(reply).code(202).send();
        },
        (errors) => renderLogin(request, reply, { errors }),
      ),
  );

  /** The signed-in user, read afresh. */
  const currentUser = async (request: FastifyRequest): Promise<User> => {
    const user = await users.findById(userIdOf(request));
    if (user === null) throw GatehouseError.notFound('The account no longer exists.');
    return user;
  };
  const authenticatorModel = async (request: FastifyRequest, reply: FastifyReply, user: User) => ({
    paths,
    antiforgeryToken: app.antiforgeryToken(request, reply),
    twoFactorEnabled: user.twoFactorEnabled,
    ...(user.twoFactorEnabled ? { remainingRecoveryCodes: await twoFactor.countRecoveryCodes(user) } : { setUp: await twoFactor.pendingSetUp(user) }),
  });
  const phoneModel = async (request: FastifyRequest, reply: FastifyReply, user: User) => ({
    antiforgeryToken: app.antiforgeryToken(request, reply),
    available: twoFactor.textMessagesAvailable,
    phoneNumber: user.phoneNumber,
    phoneConfirmed: user.phoneConfirmed,
  });
  /** A page of the set-up area for the user as now stored, waiting for what the action adds (a notice, errors, codes). */
  type AreaPage = (request: FastifyRequest, reply: FastifyReply, user: User) => Promise<(extra: PageExtra) => Html>;
  const authenticatorArea: AreaPage = async (request, reply, user) => {
    const model = await authenticatorModel(request, reply, user);
    return (extra) => app.pages.render('authenticator', { ...model, ...extra });
  };
  const phoneArea: AreaPage = async (request, reply, user) => {
    const model = await phoneModel(request, reply, user);
    return (extra) => app.pages.render('phone', { ...model, notice: extra.notice, errors: extra.errors });
  };

  app.get('/account/2fa', { config: AUTHENTICATED }, async (request, reply) => {
    const user = await currentUser(request);
    if (!wantsPage(request)) {
      const recoveryCodesLeft = user.twoFactorEnabled ? await twoFactor.countRecoveryCodes(user) : 0;
      return noStore(reply).send({ twoFactorEnabled: user.twoFactorEnabled, recoveryCodesLeft });
    }
    return sendPage(noStore(reply), app.pages.render('authenticator', await authenticatorModel(request, reply, user)));
  });

  app.get('/account/phone', { config: AUTHENTICATED }, async (request, reply) => {
    const user = await currentUser(request);
    if (!wantsPage(request)) {
      return noStore(reply).send({ available: twoFactor.textMessagesAvailable, phoneNumber: user.phoneNumber, phoneConfirmed: user.phoneConfirmed });
    }
    return sendPage(noStore(reply), app.pages.render('phone', await phoneModel(request, reply, user)));
  });

  /**
   * A two-factor change of the signed-in user, from JSON or from the set-up page's forms: JSON gets
   * `status` and `body`; a form post gets the page as it now is, with `page`'s extras. A refusal
   * is 400 with the reason by field.
   */
  interface Outcome {
    readonly status: number;
    readonly body?: unknown;
    readonly page?: PageExtra;
  }
  const change = <Body>(
    path: string,
    schema: object,
    run: (user: User, body: Body, request: FastifyRequest, reply: FastifyReply) => Promise<Outcome>,
    area: AreaPage = authenticatorArea,
    { recentSignIn = false }: { recentSignIn?: boolean } = {},
  ) =>
    app.post<{ Body: Body }>(path, { schema: { body: schema }, attachValidation: true, config: { ...AUTHENTICATED, successStatus: CHANGE_STATUSES[path] }, ...signedInLimited }, async (request, reply) => {
      const user = await currentUser(request);
      // A form post's page is prepared up front: rendering its errors cannot wait for the store.
      const withErrors = isFormPost(request) ? await area(request, reply, user) : undefined;
      return jsonOrForm(
        request,
        reply,
        async () => {
          // Before any code is checked: a caller without a recent sign-in spends no guess.
          if (recentSignIn) await recent.require(request);
          let outcome: Outcome;
          try {
            outcome = await run(user, request.body as Body, request, reply);
          } catch (error) {
            if (error instanceof TwoFactorError) throw GatehouseError.validation(REFUSALS[error.reason]);
            if (error instanceof AccountLockedError) throw accountLockedError(error, options.clock, options.config.lockoutSeconds);
            throw error;
          }
          if (!isFormPost(request)) return noStore(reply).code(outcome.status).send(outcome.body);
          const page = await area(request, reply, await currentUser(request));
          return sendPage(noStore(reply), page(outcome.page ?? {}));
        },
        (errors) => (withErrors as (extra: PageExtra) => Html)({ errors }),
      );
    });

  // A new authenticator key is a new second factor, the first one included: a thief's key turned
  // on would keep the owner out. Setting it up, replacing it, turning two-factor off, new recovery
  // codes and a phone number for sign-in codes all need a recent sign-in (decision 0065).
  const ADDS_A_WAY_IN = { recentSignIn: true };

  change<Static<typeof OptionalCode>>(
    '/account/2fa/authenticator',
    OptionalCode,
    async (user, body, request) => ({ status: 200, body: await twoFactor.setUpAuthenticator(user, body.code, { ip: request.ip }) }),
    authenticatorArea,
    ADDS_A_WAY_IN,
  );

  // Turning two-factor on or off is a security change: every session ends, and the one that asked
  // goes on under the new stamp (as with a password change), opened as it was.
  change<Static<typeof RequiredCode>>('/account/2fa/enable', RequiredCode, async (user, body, request, reply) => {
    const { recoveryCodes, session } = await twoFactor.enable(user, body.code, { ip: request.ip, session: cookies.presented(request) });
    if (session !== null) cookies.setSession(request, replyCookies(reply), session);
    return { status: 200, body: { recoveryCodes }, page: { recoveryCodes, notice: 'Two-factor sign-in is on.' } };
  });

  change<Static<typeof RequiredCode>>(
    '/account/2fa/disable',
    RequiredCode,
    async (user, body, request, reply) => {
      const session = await twoFactor.disable(user, body.code, { ip: request.ip, session: cookies.presented(request) });
      if (session !== null) cookies.setSession(request, replyCookies(reply), session);
      return { status: 204, page: { notice: 'Two-factor sign-in is off.' } };
    },
    authenticatorArea,
    ADDS_A_WAY_IN,
  );

  change<Static<typeof RequiredCode>>(
    '/account/2fa/recovery-codes',
    RequiredCode,
    async (user, body, request) => {
      const recoveryCodes = await twoFactor.regenerateRecoveryCodes(user, body.code, { ip: request.ip });
      return { status: 200, body: { recoveryCodes }, page: { recoveryCodes, notice: 'Your old recovery codes no longer work.' } };
    },
    authenticatorArea,
    ADDS_A_WAY_IN,
  );

  change<Static<typeof PhoneNumber>>(
    '/account/phone',
    PhoneNumber,
    async (user, body) => {
      await twoFactor.setPhoneNumber(user, body.phoneNumber);
      return { status: 202, page: { notice: 'We texted you a code to confirm the number.' } };
    },
    phoneArea,
    ADDS_A_WAY_IN,
  );

  change<Static<typeof RequiredCode>>(
    '/account/phone/confirm',
    RequiredCode,
    async (user, body, request) => {
      await twoFactor.confirmPhoneNumber(user, body.code, { ip: request.ip });
      return { status: 204, page: { notice: 'Your phone number is confirmed.' } };
    },
    phoneArea,
  );

  change<unknown>(
    '/account/phone/remove',
    NO_BODY,
    async (user) => {
      await twoFactor.removePhoneNumber(user);
      return { status: 204, page: { notice: 'Your phone number is removed.' } };
    },
    phoneArea,
  );
}

function providers(phoneAvailable: boolean): string[] {
  return phoneAvailable ? ['Authenticator', 'Email', 'Phone'] : ['Authenticator', 'Email'];
}

function isOn(flag: boolean | 'true' | undefined): boolean {
  return flag === true || flag === 'true';
}

function returnUrlOf(query: ReturnQuery | undefined): string | null {
  return localReturnUrl(query?.ReturnUrl ?? query?.returnUrl);
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
