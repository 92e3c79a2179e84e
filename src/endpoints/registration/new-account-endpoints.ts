import type { Phrase } from '../../i18n/phrase.ts';
import { GatehouseError } from '../../security/errors.ts';
import { ANONYMOUS } from '../authorizations.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { clientKey } from '../client-key.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import type { RegistrationEndpointOptions } from './registration-options.ts';
import { ConfirmQuery, perAddress, RegisterRequest, StatusQuery } from './registration-schemas.ts';

const USER_NAME_PATTERN = '[A-Za-z0-9._-]{3,64}';
const INVALID_CONFIRMATION: Phrase = (m) => m.problemConfirmationLinkInvalid;

/**
 * `GET|POST /account/register` and `GET /account/confirm-email`: the form's rules (JSON) or its
 * page, the registration (202, or 303 to the page saying the mail is sent), and the mail's link.
 */
export function newAccountEndpoints({ config, pages, paths, links, registration }: RegistrationEndpointOptions): readonly Endpoint[] {
  const registerForm = defineEndpoint({
    method: 'GET',
    path: '/account/register',
    authorization: ANONYMOUS,
    query: StatusQuery,
    async handle(request) {
      if (!prefersHtml(request.headers.accept)) return { status: 200, body: { passwordMinLength: config.passwordMinLength, userNamePattern: USER_NAME_PATTERN } };
      const query = request.query as StatusQuery;
      if (query.status === 'sent') return pageResponse(pages, pages.render('registrationSent', {}, pages.language(request.headers['accept-language'])));
      return pageResponse(pages, pages.render('register', { antiforgeryToken: request.antiforgeryToken(), passwordMinLength: config.passwordMinLength }, pages.language(request.headers['accept-language'])));
    },
  });

  const register = defineEndpoint<RegisterRequest>({
    method: 'POST',
    path: '/account/register',
    authorization: ANONYMOUS,
    body: RegisterRequest,
    forms: true,
    successStatus: 202,
    rateLimits: perAddress,
    async handle(request) {
      const { email, password, userName } = request.body;
      await registration.register({ email, password, userName: userName === '' || userName === undefined ? null : userName }, links, {
        clientKey: clientKey(request.ip),
        language: request.statedLanguage(),
      });
      if (request.form) return seeOther(`${paths.register}?status=sent`);
      return { status: 202, body: { status: 'confirmation-sent' } };
    },
    formErrors: (request, errors) =>
      pageResponse(
        pages,
        pages.render(
          'register',
          {
            antiforgeryToken: request.antiforgeryToken(),
            passwordMinLength: config.passwordMinLength,
            email: request.body?.email,
            userName: request.body?.userName,
            errors,
          },
          pages.language(request.headers['accept-language']),
        ),
      ),
  });

  const confirmEmail = defineEndpoint({
    method: 'GET',
    path: '/account/confirm-email',
    authorization: ANONYMOUS,
    query: ConfirmQuery,
    async handle(request) {
      const query = request.query as ConfirmQuery;
      const userId = /^[1-9][0-9]{0,15}$/.test(query.userId ?? '') ? Number(query.userId) : 0;
      const confirmed = await registration.confirmEmail(userId, query.code);
      if (prefersHtml(request.headers.accept)) return pageResponse(pages, pages.render('emailConfirmed', { confirmed }, pages.language(request.headers['accept-language'])), confirmed ? 200 : 400);
      if (!confirmed) throw GatehouseError.validation({ code: [INVALID_CONFIRMATION] }, INVALID_CONFIRMATION);
      return { status: 200, body: { confirmed: true } };
    },
  });

  return [registerForm, register, confirmEmail];
}
