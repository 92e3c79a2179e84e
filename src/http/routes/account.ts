import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatehouseError } from '../../security/errors.ts';
import { readCookie } from '../antiforgery.ts';
import { authCookieName, authCookieProtector, clearAuthCookie, setAuthCookie } from '../auth-cookie.ts';
import { userIdOf } from '../pipeline.ts';
import { rateLimited } from '../rate-limit.ts';
import { sendSignInFailure } from '../sign-in-failure.ts';
import type { RouteContext } from './route-context.ts';

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;

const LoginRequest = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    userName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_FIELD_MAX }),
    rememberMe: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
type LoginRequest = Static<typeof LoginRequest>;

/**
 * The cookie side of membership (SPEC section 4): `POST /account/login` signs in with a password
 * and sets the auth cookie, `POST /account/logout` deletes the session in the store, and
 * `GET /account/profile` describes the signed-in user (policy `User`: an API-key caller acts
 * for no user and gets 403). JSON only for now; the form and page variants come with the pages.
 */
export async function accountRoutes(app: FastifyInstance, { services }: RouteContext): Promise<void> {
  const { config, sessions, clock } = services;
  const protector = authCookieProtector(services.keyRing.secrets.cookie);
  const cookieName = authCookieName(config);

  /** The session token in the auth cookie the request carries, when it opens. */
  const presentedSession = (request: FastifyRequest): string | null => {
    const value = readCookie(request, cookieName);
    return value === undefined ? null : protector.unprotect(value);
  };

  app.post<{ Body: LoginRequest }>(
    '/account/login',
    {
      schema: { body: LoginRequest },
      config: { authorization: { allowAnonymous: true } },
      ...rateLimited(services, { account: (request) => loginOf(request.body as LoginRequest) }),
    },
    async (request, reply) => {
      const login = loginOf(request.body);
      if (login === undefined) throw GatehouseError.validation({ email: ['Enter the e-mail or the user name.'] });
      const result = await services.signIn.passwordSignIn(login, request.body.password, { ip: request.ip });
      if (!result.succeeded) return sendSignInFailure(reply, result);
      // A new session for every sign-in (no fixation); the one the browser held before ends.
      const previous = presentedSession(request);
      if (previous !== null) await sessions.signOut(previous);
      const session = await sessions.signIn(result.user, { persistent: request.body.rememberMe === true });
      setAuthCookie(reply, config, { ...session, value: protector.protect(session.token) }, clock.now());
      return noStore(reply).send({ succeeded: true });
    },
  );

  app.post('/account/logout', async (request, reply) => {
    const token = presentedSession(request);
    if (token !== null) await sessions.signOut(token);
    clearAuthCookie(reply, config);
    return noStore(reply).code(204).send();
  });

  app.get('/account/profile', { config: { authorization: { authorize: [{ policy: 'User' }] } } }, async (request, reply) => {
    const user = await services.store.users.findById(userIdOf(request));
    if (user === null) throw GatehouseError.notFound('The account no longer exists.');
    return noStore(reply).send({
      id: user.id,
      email: user.email,
      userName: user.userName,
      emailConfirmed: user.emailConfirmed,
      // Phone numbers, two-factor and external logins arrive with their features.
      phoneNumber: null,
      phoneConfirmed: false,
      twoFactorEnabled: false,
      roles: user.roles,
      claims: user.claims.map(({ type, value }) => ({ type, value })),
      logins: [],
    });
  });
}

/** The account a login names: its e-mail, else its user name. */
function loginOf(body: LoginRequest): string | undefined {
  return body.email ?? body.userName;
}

/** Answers about a signed-in user are never cached by the browser or a proxy. */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
