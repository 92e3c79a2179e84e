import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { PasswordReset } from '../../identity/password-reset.ts';
import type { Registration } from '../../identity/registration.ts';
import { GatehouseError } from '../../security/errors.ts';
import { clientKey } from '../../endpoints/client-key.ts';
import { jsonOrForm } from '../form-posts.ts';
import { isFormPost, seeOther, sendPage, wantsPage } from '../negotiation.ts';
import { formBodiesPlugin } from '../plugins/form-bodies.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { type RateLimitDependencies, rateLimited } from '../rate-limit.ts';

/** What registration, confirmation and reset use: their use cases, and where the routes are (the mails link to them). */
export interface AccountRegistrationRouteOptions extends RateLimitDependencies {
  readonly paths: MembershipPaths;
  readonly registration: Registration;
  readonly passwordReset: PasswordReset;
}

/** Long enough for any real password (128 code points of 4 bytes), short enough to refuse before hashing. */
const PASSWORD_FIELD_MAX = 1024;
const EMAIL_FIELD_MAX = 254;

const Flag = Type.Union([Type.Boolean(), Type.Literal('true')]);
const RegisterRequest = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_FIELD_MAX }),
    password: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    userName: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
const ConfirmQuery = Type.Object({ userId: Type.Optional(Type.String({ maxLength: 20 })), code: Type.Optional(Type.String({ maxLength: 100 })) });
const ForgotRequest = Type.Object({ email: Type.String({ maxLength: EMAIL_FIELD_MAX }) }, { additionalProperties: false });
const ResetRequest = Type.Object(
  {
    email: Type.String({ maxLength: EMAIL_FIELD_MAX }),
    code: Type.String({ maxLength: 100 }),
    newPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    /** Remove every passkey of the account with the reset (a form's checkbox sends `true`). */
    removePasskeys: Type.Optional(Flag),
    /** Unlink every external login of the account with the reset. */
    removeExternalLogins: Type.Optional(Flag),
  },
  { additionalProperties: false },
);
const ResetQuery = Type.Object({
  email: Type.Optional(Type.String({ maxLength: EMAIL_FIELD_MAX })),
  code: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.String({ maxLength: 10 })),
});
const StatusQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 10 })) });
const ResendQuery = Type.Object({ status: Type.Optional(Type.String({ maxLength: 10 })), email: Type.Optional(Type.String({ maxLength: EMAIL_FIELD_MAX })) });

const anonymous = { authorization: { allowAnonymous: true } } as const;
const INVALID_CONFIRMATION = 'This confirmation link is wrong, expired or replaced by a newer one.';
const INVALID_RESET = 'The reset link is wrong, expired or already used.';

/**
 * Registration, e-mail confirmation and password reset (docs/reference/http.md): JSON for programs, pages
 * and form posts for browsers, with the same rules. Forms are read only here and on the other
 * account pages (formBodiesPlugin).
 */
export async function accountRegistrationRoutes(app: FastifyInstance, options: AccountRegistrationRouteOptions): Promise<void> {
  const { paths, registration, passwordReset, config } = options;
  // The mails' links lead back to these routes, wherever they are mounted.
  const links = paths.accountLinks(config.publicUrl);
  await app.register(formBodiesPlugin);
  // Counted per IP, and per the e-mail they name and IP (docs/reference/configuration.md).
  const limited = rateLimited(options, { account: (request) => emailOf(request.body) });
  resendConfirmationRoutes(app, options, limited);

  app.get<{ Querystring: Static<typeof StatusQuery> }>('/account/register', { schema: { querystring: StatusQuery }, config: anonymous }, async (request, reply) => {
    if (!wantsPage(request)) return { passwordMinLength: config.passwordMinLength, userNamePattern: '[A-Za-z0-9._-]{3,64}' };
    if (request.query.status === 'sent') return sendPage(reply, app.pages.render('registrationSent', {}));
    return sendPage(reply, app.pages.render('register', { antiforgeryToken: app.antiforgeryToken(request, reply), passwordMinLength: config.passwordMinLength }));
  });

  app.post<{ Body: Static<typeof RegisterRequest> }>(
    '/account/register',
    { schema: { body: RegisterRequest }, attachValidation: true, config: { ...anonymous, successStatus: 202 }, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          const { email, password, userName } = request.body;
          await registration.register({ email, password, userName: userName === '' || userName === undefined ? null : userName }, links, { clientKey: clientKey(request.ip) });
          if (isFormPost(request)) return seeOther(reply, `${paths.register}?status=sent`);
          return reply.code(202).send({ status: 'confirmation-sent' });
        },
        (errors) =>
          app.pages.render('register', {
            antiforgeryToken: app.antiforgeryToken(request, reply),
            passwordMinLength: config.passwordMinLength,
            email: request.body?.email,
            userName: request.body?.userName,
            errors,
          }),
      ),
  );

  app.get<{ Querystring: Static<typeof ConfirmQuery> }>(
    '/account/confirm-email',
    { schema: { querystring: ConfirmQuery }, config: anonymous },
    async (request, reply) => {
      const userId = /^[1-9][0-9]{0,15}$/.test(request.query.userId ?? '') ? Number(request.query.userId) : 0;
      const confirmed = await registration.confirmEmail(userId, request.query.code);
      if (wantsPage(request)) return sendPage(reply, app.pages.render('emailConfirmed', { confirmed }), confirmed ? 200 : 400);
      if (!confirmed) throw GatehouseError.validation({ code: [INVALID_CONFIRMATION] }, INVALID_CONFIRMATION);
      return { confirmed: true };
    },
  );

  app.post<{ Body: Static<typeof ForgotRequest> }>(
    '/account/forgot-password',
    { schema: { body: ForgotRequest }, attachValidation: true, config: { ...anonymous, successStatus: 202 }, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          // Answered before the look-up and the mail: the time taken must not tell whether the address is known.
          void passwordReset.requestReset(request.body.email, links).catch((error: unknown) => {
            request.log.error({ err: error }, 'could not send a password reset link');
          });
          if (isFormPost(request)) return seeOther(reply, `${paths.resetPassword}?status=sent`);
          return reply.code(202).send();
        },
        (errors) => app.pages.render('forgotPassword', { antiforgeryToken: app.antiforgeryToken(request, reply), email: request.body?.email, errors }),
      ),
  );

  app.get<{ Querystring: Static<typeof ResetQuery> }>('/account/reset-password', { schema: { querystring: ResetQuery }, config: anonymous }, async (request, reply) => {
    if (!wantsPage(request)) return { passwordMinLength: config.passwordMinLength };
    const { email, code, status } = request.query;
    const antiforgeryToken = app.antiforgeryToken(request, reply);
    if (status === 'done') return sendPage(reply, app.pages.render('passwordResetDone', {}));
    if (email !== undefined && code !== undefined) {
      return sendPage(reply, app.pages.render('resetPassword', { antiforgeryToken, email, code, passwordMinLength: config.passwordMinLength }));
    }
    return sendPage(reply, app.pages.render('forgotPassword', { antiforgeryToken, sent: status === 'sent' }));
  });

  app.post<{ Body: Static<typeof ResetRequest> }>(
    '/account/reset-password',
    { schema: { body: ResetRequest }, attachValidation: true, config: { ...anonymous, successStatus: 204 }, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          const { email, code, newPassword } = request.body;
          const remove = { passkeys: isOn(request.body.removePasskeys), externalLogins: isOn(request.body.removeExternalLogins) };
          const done = await passwordReset.reset(email, code, newPassword, { ip: request.ip, clientKey: clientKey(request.ip), remove });
          if (!done) throw GatehouseError.validation({ code: [INVALID_RESET] }, INVALID_RESET);
          if (isFormPost(request)) return seeOther(reply, `${paths.resetPassword}?status=done`);
          return reply.code(204).send();
        },
        (errors) =>
          app.pages.render('resetPassword', {
            antiforgeryToken: app.antiforgeryToken(request, reply),
            email: request.body?.email ?? '',
            code: request.body?.code ?? '',
            passwordMinLength: config.passwordMinLength,
            errors,
          }),
      ),
  );
}

/**
 * A new confirmation mail for an account not confirmed yet (`GET|POST /account/resend-confirmation`):
 * 202 (or the page saying "if…") whatever the address, answered before the look-up so that
 * neither the answer nor its time tells whether the address has an account; counted by the rate
 * limit like the other requests that name an address.
 */
function resendConfirmationRoutes(app: FastifyInstance, { config, paths, registration }: AccountRegistrationRouteOptions, limited: ReturnType<typeof rateLimited>): void {
  const links = paths.accountLinks(config.publicUrl);
  app.get<{ Querystring: Static<typeof ResendQuery> }>('/account/resend-confirmation', { schema: { querystring: ResendQuery }, config: anonymous }, async (request, reply) => {
    if (!wantsPage(request)) return {};
    const { email, status } = request.query;
    return sendPage(reply, app.pages.render('resendConfirmation', { antiforgeryToken: app.antiforgeryToken(request, reply), email, sent: status === 'sent' }));
  });

  app.post<{ Body: Static<typeof ForgotRequest> }>(
    '/account/resend-confirmation',
    { schema: { body: ForgotRequest }, attachValidation: true, config: { ...anonymous, successStatus: 202 }, ...limited },
    async (request, reply) =>
      jsonOrForm(
        request,
        reply,
        async () => {
          void registration.resendConfirmation(request.body.email, links).catch((error: unknown) => {
            request.log.error({ err: error }, 'could not send a confirmation mail');
          });
          if (isFormPost(request)) return seeOther(reply, `${app.pages.paths.resendConfirmation}?status=sent`);
          return reply.code(202).send({ status: 'confirmation-sent' });
        },
        (errors) => app.pages.render('resendConfirmation', { antiforgeryToken: app.antiforgeryToken(request, reply), email: request.body?.email, errors }),
      ),
  );
}

/** The e-mail a body names, when it is a string (the body may have failed validation). */
function emailOf(body: unknown): string | undefined {
  const email = (body as { email?: unknown } | undefined)?.email;
  return typeof email === 'string' && email !== '' ? email : undefined;
}

function isOn(flag: boolean | 'true' | undefined): boolean {
  return flag === true || flag === 'true';
}
