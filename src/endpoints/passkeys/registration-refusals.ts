import { PasskeyRegistrationRefused } from '../../identity/passkeys.ts';
import { GatehouseError } from '../../security/errors.ts';

const REFUSALS: Record<PasskeyRegistrationRefused['reason'], string> = {
  challenge: 'The passkey answers no registration started here, or it took longer than five minutes. Start again.',
  verification: 'The passkey could not be verified (origin, relying party, challenge or signature).',
  'credential-id-too-long': "The passkey's credential id is longer than 1,023 bytes.",
  'credential-id-mismatch': "The response's id is not the credential id its authenticator attested.",
  taken: 'This passkey is registered already.',
  'too-many': 'This account has as many passkeys as it may hold: remove one first.',
};

/**
 * A refused registration as the caller's error: 400 naming the `response` field, with why in
 * words. Any other error goes on as it is.
 */
export function registrationRefused(error: unknown): never {
  if (error instanceof PasskeyRegistrationRefused) throw GatehouseError.validation({ response: [REFUSALS[error.reason]] }, REFUSALS[error.reason]);
  throw error;
}
