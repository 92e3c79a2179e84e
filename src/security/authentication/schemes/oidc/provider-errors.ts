/**
 * The provider could not be reached, did not answer in time, or answered with a server error:
 * nothing about the user is known, and trying again later may work (502).
 */
export class ExternalProviderUnavailable extends Error {
  override readonly name = 'ExternalProviderUnavailable';
}

/**
 * The provider's answer cannot be believed or used: a refused code, an ID token that fails
 * verification. `reason` is a short fixed code for the audit log, never text from the provider.
 */
export class ExternalResponseRejected extends Error {
  override readonly name = 'ExternalResponseRejected';

  constructor(
    readonly reason: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The `error` codes of RFC 6749 4.1.2.1 and OpenID Connect Core 3.1.2.6. The provider's `error`
 * is reduced to one of these (or `other`) before it reaches the audit log or an answer: it is
 * text from outside, and `error_description` is never read at all.
 */
const AUTHORIZATION_ERRORS = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
  'interaction_required',
  'login_required',
  'account_selection_required',
  'consent_required',
  'invalid_request_uri',
  'invalid_request_object',
  'request_not_supported',
  'request_uri_not_supported',
  'registration_not_supported',
]);

export function authorizationErrorCode(error: unknown): string {
  return typeof error === 'string' && AUTHORIZATION_ERRORS.has(error) ? error : 'other';
}
