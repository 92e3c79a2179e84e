import { ANONYMOUS } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import type { RegistrationEndpointOptions } from './registration-options.ts';
import { EmailRequest, perAddress, ResendQuery } from './registration-schemas.ts';

/**
 * A new confirmation mail for an account not confirmed yet (`GET|POST /account/resend-confirmation`):
 * 202 (or the page saying "if…") whatever the address, answered before the look-up so that
 * neither the answer nor its time tells whether the address has an account; counted by the rate
 * limit like the other requests that name an address.
 */
export function resendConfirmationEndpoints({ pages, links, registration }: RegistrationEndpointOptions): readonly Endpoint[] {
  const resendForm = defineEndpoint({
    method: 'GET',
    path: '/account/resend-confirmation',
    authorization: ANONYMOUS,
    query: ResendQuery,
    async handle(request) {
      if (!prefersHtml(request.headers.accept)) return { status: 200, body: {} };
      const { email, status } = request.query as ResendQuery;
      return pageResponse(pages, pages.render('resendConfirmation', { antiforgeryToken: request.antiforgeryToken(), email, sent: status === 'sent' }, pages.language(request.headers['accept-language'])));
    },
  });

  const resend = defineEndpoint<EmailRequest>({
    method: 'POST',
    path: '/account/resend-confirmation',
    authorization: ANONYMOUS,
    body: EmailRequest,
    forms: true,
    successStatus: 202,
    rateLimits: perAddress,
    async handle(request) {
      void registration.resendConfirmation(request.body.email, links, pages.language(request.headers['accept-language'])).catch((error: unknown) => {
        request.log.error({ err: error }, 'could not send a confirmation mail');
      });
      if (request.form) return seeOther(`${pages.paths.resendConfirmation}?status=sent`);
      return { status: 202, body: { status: 'confirmation-sent' } };
    },
    formErrors: (request, errors) => pageResponse(pages, pages.render('resendConfirmation', { antiforgeryToken: request.antiforgeryToken(), email: request.body?.email, errors }, pages.language(request.headers['accept-language']))),
  });

  return [resendForm, resend];
}
