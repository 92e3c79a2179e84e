import type { Endpoint } from '../endpoint.ts';
import { passwordResetEndpoints } from './password-reset-endpoints.ts';
import { newAccountEndpoints } from './new-account-endpoints.ts';
import type { RegistrationEndpointOptions } from './registration-options.ts';
import { resendConfirmationEndpoints } from './resend-confirmation-endpoints.ts';

export type { RegistrationEndpointOptions } from './registration-options.ts';

/**
 * Registration, e-mail confirmation and password reset (docs/reference/http.md): JSON for
 * programs, pages and form posts for browsers, with the same rules. The posts that name an
 * address are counted per client, and per the address and client.
 */
export function registrationEndpoints(options: RegistrationEndpointOptions): readonly Endpoint[] {
  return [...resendConfirmationEndpoints(options), ...newAccountEndpoints(options), ...passwordResetEndpoints(options)];
}
