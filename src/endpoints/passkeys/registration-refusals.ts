import { PasskeyRegistrationRefused } from '../../identity/passkeys.ts';
import type { Phrase } from '../../i18n/phrase.ts';
import { GatehouseError } from '../../security/errors.ts';

const REFUSALS: Record<PasskeyRegistrationRefused['reason'], Phrase> = {
  challenge: (m) => m.problemPasskeyChallenge,
  verification: (m) => m.problemPasskeyNotVerified,
  'credential-id-too-long': (m) => m.problemPasskeyIdTooLong,
  'credential-id-mismatch': (m) => m.problemPasskeyIdMismatch,
  taken: (m) => m.problemPasskeyTaken,
  'too-many': (m) => m.problemPasskeyTooMany,
};

/**
 * A refused registration as the caller's error: 400 naming the `response` field, with why in
 * words. Any other error goes on as it is.
 */
export function registrationRefused(error: unknown): never {
  if (error instanceof PasskeyRegistrationRefused) throw GatehouseError.validation({ response: [REFUSALS[error.reason]] }, REFUSALS[error.reason]);
  throw error;
}
