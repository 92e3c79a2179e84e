import { membershipPolicies } from '../membership-policies.ts';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountLockedError } from '../../identity/credential-checks.ts';
import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { PasskeyManager } from '../../identity/passkeys.ts';
import type { SessionManager, SignedInSession } from '../../identity/sessions.ts';
import type { SignInManager } from '../../identity/sign-in-manager.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { UserSessions } from '../../identity/user-sessions.ts';
import type { PasswordChange } from '../../membership/password-change.ts';
import type { SignOut } from '../../membership/sign-out.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { User } from '../../store/ports.ts';
import type { ProfileSession } from '../../pages/profile-sessions.ts';
import { accountLockedError } from '../../endpoints/account-locked.ts';
import { clearAuthCookie } from '../../endpoints/auth-cookie.ts';
import { clientKey } from '../../endpoints/client-key.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { jsonOrForm } from '../form-posts.ts';
import { isFormPost, seeOther, sendPage, wantsPage } from '../negotiation.ts';
import { userIdOf } from '../pipeline.ts';
import { formBodiesPlugin } from '../plugins/form-bodies.ts';
import { type RateLimitDependencies, rateLimited, userAccount } from '../rate-limit.ts';
import type { PasskeyView } from '../../pages/passkeys/passkey-markup.ts';
import { localReturnUrl } from '../return-url.ts';
import { sendSignInFailure } from '../sign-in-failure.ts';
import { replyCookies } from '../reply-cookies.ts';

/** What the cookie side of membership uses: its use cases, the reads of the profile, and where the routes are. */
export interface AccountRouteOptions extends CookieSignInDependencies, RateLimitDependencies {
  readonly paths: MembershipPaths;
  readonly signIn: Pick<SignInManager, 'passwordSignIn'>;
  readonly signOut: SignOut;
  readonly passwordChange: PasswordChange;
  readonly users: Pick<UserManager, 'findById'>;
  readonly sessions: Pick<SessionManager, 'current'>;
  readonly externalLogins: Pick<ExternalLogins, 'providersOf'>;
  /** The user's passkeys, for the profile page, when passkeys are on; else null. */
  readonly passkeys: Pick<PasskeyManager, 'list'> | null;
  /** "Where you are signed in", when the profile page lists the user's sessions; else null. */
  readonly userSessions: Pick<UserSessions, 'list'> | null;
}

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;

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
type ReturnQuery = Static<typeof ReturnQuery>;

const PasswordChangeRequest = Type.Object(
  {
    currentPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    newPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
  },
  { additionalProperties: false },
);
type PasswordChangeRequest = Static<typeof PasswordChangeRequest>;

const INVALID_SIGN_IN = 'Invalid sign-in attempt.';

/** What the profile page says after the form that sent the browser back to it (`?status=`). */
const PROFILE_NOTICES: ReadonlyMap<string, string> = new Map([
  ['password-changed', 'Your password is changed. Every other session was signed out.'],
  ['passkey-added', 'Your passkey is added: you can sign in with it from now on.'],
  ['passkey-renamed', 'Your passkey is renamed.'],
  ['passkey-removed', 'Your passkey is removed. Every other session was signed out.'],
  ['session-ended', 'That session is signed out.'],
  ['sessions-ended', 'Every other session is signed out.'],
]);
const NOT_ALLOWED = 'Confirm your e-mail address before signing in: follow the link in the mail we sent.';

/**
 * The cookie side of membership (docs/reference/http.md): `POST /account/login` signs in with a password
 * and sets the auth cookie, `POST /account/logout` deletes the session in the store, and
 * `GET /account/profile` describes the signed-in user (policy `User`: an API-key caller acts
 * for no user and gets 403). Browsers get the same as pages and form posts (303 on success).
 */
export async function accountRoutes(app: FastifyInstance, options: AccountRouteOptions): Promise<void> {
  const { config, sessions, clock, paths, passkeys, userSessions } = options;
  const cookies = new CookieSignIn(options);
  const presentedSession = (request: FastifyRequest) => cookies.presentedSession(request);

  await app.register(formBodiesPlugin);
  const providers = config.oidcProviders.map((provider) => provider.name);

  /** The login page, with what the user typed and why it failed when it did. */
  const renderLogin = (
    request: FastifyRequest<{ Querystring: ReturnQuery }>,
    reply: FastifyReply,
    failed?: { login?: string; errors: Record<string, readonly string[]>; unconfirmedEmail?: boolean },
  ) =>
    app.pages.render('login', {
      antiforgeryToken: app.antiforgeryToken(request, reply),
      returnUrl: returnUrlOf(request.query) ?? undefined,
      providers,
      ...(failed ? { login: failed.login, errors: failed.errors, unconfirmedEmail: failed.unconfirmedEmail ?? false } : {}),
    });

  app.get<{ Querystring: ReturnQuery }>(
    '/account/login',
    { schema: { querystring: ReturnQuery }, config: { authorization: { allowAnonymous: true } } },
    async (request, reply) => {
      if (!wantsPage(request)) return { providers };
      return sendPage(noStore(reply), renderLogin(request, reply));
    },
  );

  app.post<{ Body: LoginRequest; Querystring: ReturnQuery }>(
    '/account/login',
    {
      schema: { body: LoginRequest, querystring: ReturnQuery },
      attachValidation: true,
      config: { authorization: { allowAnonymous: true } },
      ...rateLimited(options, { account: (request) => loginOf(request.body as LoginRequest | undefined) }),
    },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          const login = loginOf(request.body);
          if (login === undefined) throw GatehouseError.validation({ email: ['Enter the e-mail or the user name.'] });
          const persistent = request.body.rememberMe === true || request.body.rememberMe === 'true';
          const result = await options.signIn.passwordSignIn(login, request.body.password, {
            ip: request.ip,
            clientKey: clientKey(request.ip),
            rememberedClient: cookies.rememberedClient(request),
            grant: cookies.sessionGrant(request, persistent, 'password'),
          });
          if (result.requiresTwoFactor) {
            cookies.startTwoFactor(replyCookies(reply), result.user, persistent, { method: 'two-factor' });
            const returnUrl = returnUrlOf(request.query);
            if (isFormPost(request)) return seeOther(noStore(reply), paths.withReturnUrl(paths.twoFactorLogin, returnUrl));
            return noStore(reply).send({ succeeded: false, requiresTwoFactor: true });
          }
          if (!result.succeeded) {
            if (!isFormPost(request)) return sendSignInFailure(reply, result);
            const message = result.isNotAllowed ? NOT_ALLOWED : INVALID_SIGN_IN;
            const failed = { login, errors: { '': [message] }, unconfirmedEmail: result.isNotAllowed === true };
            return sendPage(reply, renderLogin(request, reply, failed), 401);
          }
          cookies.setGrantedSession(request, replyCookies(reply), result);
          if (isFormPost(request)) return seeOther(noStore(reply), returnUrlOf(request.query) ?? paths.profile);
          return noStore(reply).send({ succeeded: true });
        },
        (errors) => renderLogin(request, reply, { login: loginOf(request.body), errors }),
      ),
  );

  app.post('/account/logout', { config: { successStatus: 204 } }, async (request, reply) => {
    const token = presentedSession(request);
    if (token !== null) await options.signOut.signOut(token);
    clearAuthCookie(replyCookies(reply), config);
    if (isFormPost(request)) return seeOther(noStore(reply), paths.login);
    return noStore(reply).code(204).send();
  });

  const renderProfile = (
    request: FastifyRequest,
    reply: FastifyReply,
    user: User,
    extra: {
      errors?: Record<string, readonly string[]>;
      notice?: string;
      logins?: readonly string[];
      linkable?: readonly string[];
      passkeys?: readonly PasskeyView[];
      sessions?: readonly ProfileSession[];
    } = {},
  ) =>
    app.pages.render('profile', {
      antiforgeryToken: app.antiforgeryToken(request, reply),
      email: user.email,
      userName: user.userName,
      emailConfirmed: user.emailConfirmed,
      phoneNumber: user.phoneNumber,
      phoneConfirmed: user.phoneConfirmed,
      twoFactorEnabled: user.twoFactorEnabled,
      roles: user.roles,
      logins: [],
      ...extra,
    });

  /** The user's sessions for the profile page, this browser's marked. */
  const profileSessions = async (request: FastifyRequest): Promise<readonly ProfileSession[] | undefined> => {
    if (userSessions === null) return undefined;
    const token = presentedSession(request);
    const current = token === null ? null : await sessions.current(token);
    return userSessions.list(userIdOf(request), current?.valid ? { sessionId: current.sessionId } : {});
  };

  /** The signed-in user, read afresh (an admin may have changed roles since the cookie was set). */
  const currentUser = async (request: FastifyRequest): Promise<User> => {
    const user = await options.users.findById(userIdOf(request));
    if (user === null) throw GatehouseError.notFound('The account no longer exists.');
    return user;
  };

  app.post<{ Body: PasswordChangeRequest }>(
    '/account/password',
    {
      schema: { body: PasswordChangeRequest },
      attachValidation: true,
      config: { authorization: { authorize: [{ policy: membershipPolicies.user }] }, successStatus: 204 },
      // The current password is a guess like any other: the signed-in user's budget counts it.
      ...rateLimited(options, { account: (request) => userAccount(userIdOf(request)) }),
    },
    async (request, reply) => {
      const user = await currentUser(request);
      return jsonOrForm(
        request,
        reply,
        async () => {
          let session: SignedInSession | null;
          try {
            session = await options.passwordChange.change(user, request.body, { by: user.id, ip: request.ip }, cookies.presented(request));
          } catch (error) {
            if (error instanceof AccountLockedError) throw accountLockedError(error, clock, config.lockoutSeconds);
            throw error;
          }
          // Every other session, refresh token and access token ended with the security stamp; the
          // session that asked goes on under the new one.
          if (session !== null) cookies.setSession(request, replyCookies(reply), session);
          if (isFormPost(request)) return seeOther(noStore(reply), `${paths.profile}?status=password-changed`);
          return noStore(reply).code(204).send();
        },
        async (errors) => {
          const listed = await profileSessions(request);
          return renderProfile(request, reply, user, { errors, ...(listed ? { sessions: listed } : {}) });
        },
      );
    },
  );

  app.get<{ Querystring: { status?: string } }>('/account/profile', { config: { authorization: { authorize: [{ policy: membershipPolicies.user }] } } }, async (request, reply) => {
    const user = await currentUser(request);
    const logins = await options.externalLogins.providersOf(user.id);
    if (wantsPage(request)) {
      const notice = PROFILE_NOTICES.get(request.query.status ?? '');
      const linkable = providers.filter((provider) => !logins.includes(provider));
      const passkeyList = passkeys ? { passkeys: await passkeyViews(passkeys, user) } : {};
      const listed = await profileSessions(request);
      return sendPage(noStore(reply), renderProfile(request, reply, user, { logins, linkable, ...passkeyList, ...(notice ? { notice } : {}), ...(listed ? { sessions: listed } : {}) }));
    }
    return noStore(reply).send({
      id: user.id,
      email: user.email,
      userName: user.userName,
      emailConfirmed: user.emailConfirmed,
      phoneNumber: user.phoneNumber,
      phoneConfirmed: user.phoneConfirmed,
      twoFactorEnabled: user.twoFactorEnabled,
      roles: user.roles,
      claims: user.claims.map(({ type, value }) => ({ type, value })),
      logins: logins.map((provider) => ({ provider })),
    });
  });
}

/** The user's passkeys as the profile lists them (times as the JSON routes write them). */
async function passkeyViews(passkeys: Pick<PasskeyManager, 'list'>, user: User): Promise<PasskeyView[]> {
  const list = await passkeys.list(user);
  return list.map((passkey) => ({
    id: passkey.credentialId,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt).toISOString(),
    lastUsedAt: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt).toISOString(),
    backedUp: passkey.backedUp,
  }));
}

/** The account a login names: its e-mail, else its user name (undefined for a body that failed validation). */
function loginOf(body: LoginRequest | undefined): string | undefined {
  const login = body?.email ?? body?.userName;
  return typeof login === 'string' ? login : undefined;
}

function returnUrlOf(query: ReturnQuery | undefined): string | null {
  return localReturnUrl(query?.ReturnUrl ?? query?.returnUrl);
}

/** Answers about a signed-in user are never cached by the browser or a proxy. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
