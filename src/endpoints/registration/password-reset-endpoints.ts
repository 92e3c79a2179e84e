import type { Phrase } from '../../i18n/phrase.ts';
import { GatehouseError } from '../../security/errors.ts';
import { ANONYMOUS } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { clientKey } from '../client-key.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import type { RegistrationEndpointOptions } from './registration-options.ts';
import { EmailRequest, perAddress, ResetQuery, ResetRequest } from './registration-schemas.ts';

const INVALID_RESET: Phrase = (m) => m.problemResetLinkInvalid;

/**
 * `POST /account/forgot-password` (the mail with a reset link) and `GET|POST
 * /account/reset-password` (the form, from that link; the reset itself).
 */
export function passwordResetEndpoints({ config, pages, paths, links, passwordReset }: RegistrationEndpointOptions): readonly Endpoint[] {
  const forgotPassword = defineEndpoint<EmailRequest>({
    method: 'POST',
    path: '/account/forgot-password',
    authorization: ANONYMOUS,
    body: EmailRequest,
    forms: true,
    successStatus: 202,
    rateLimits: perAddress,
    async handle(request) {
      // Answered before the look-up and the mail: the time taken must not tell whether the address is known.
      void passwordReset.requestReset(request.body.email, links, pages.language(request.headers['accept-language'])).catch((error: unknown) => {
        request.log.error({ err: error }, 'could not send a password reset link');
      });
      if (request.form) return seeOther(`${paths.resetPassword}?status=sent`);
      return { status: 202 };
    },
    formErrors: (request, errors) => pageResponse(pages, pages.render('forgotPassword', { antiforgeryToken: request.antiforgeryToken(), email: request.body?.email, errors }, pages.language(request.headers['accept-language']))),
  });

  const resetForm = defineEndpoint({
    method: 'GET',
    path: '/account/reset-password',
    authorization: ANONYMOUS,
    query: ResetQuery,
    async handle(request) {
      if (!prefersHtml(request.headers.accept)) return { status: 200, body: { passwordMinLength: config.passwordMinLength } };
      const { email, code, status } = request.query as ResetQuery;
      const antiforgeryToken = request.antiforgeryToken();
      if (status === 'done') return pageResponse(pages, pages.render('passwordResetDone', {}, pages.language(request.headers['accept-language'])));
      if (email !== undefined && code !== undefined) {
        return pageResponse(pages, pages.render('resetPassword', { antiforgeryToken, email, code, passwordMinLength: config.passwordMinLength }, pages.language(request.headers['accept-language'])));
      }
      return pageResponse(pages, pages.render('forgotPassword', { antiforgeryToken, sent: status === 'sent' }, pages.language(request.headers['accept-language'])));
    },
  });

  const reset = defineEndpoint<ResetRequest>({
    method: 'POST',
    path: '/account/reset-password',
    authorization: ANONYMOUS,
    body: ResetRequest,
    forms: true,
    successStatus: 204,
    rateLimits: perAddress,
    async handle(request) {
      const { email, code, newPassword } = request.body;
      const remove = { passkeys: isOn(request.body.removePasskeys), externalLogins: isOn(request.body.removeExternalLogins) };
      const done = await passwordReset.reset(email, code, newPassword, { ip: request.ip, clientKey: clientKey(request.ip), remove });
      if (!done) throw GatehouseError.validation({ code: [INVALID_RESET] }, INVALID_RESET);
      if (request.form) return seeOther(`${paths.resetPassword}?status=done`);
      return { status: 204 };
    },
    formErrors: (request, errors) =>
      pageResponse(
        pages,
        pages.render(
          'resetPassword',
          {
            antiforgeryToken: request.antiforgeryToken(),
            email: request.body?.email ?? '',
            code: request.body?.code ?? '',
            passwordMinLength: config.passwordMinLength,
            errors,
          },
          pages.language(request.headers['accept-language']),
        ),
      ),
  });

  return [forgotPassword, resetForm, reset];
}

function isOn(flag: boolean | 'true' | undefined): boolean {
  return flag === true || flag === 'true';
}
