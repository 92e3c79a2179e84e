import type { AccountLockedError } from '../identity/credential-checks.ts';
import type { Clock } from '../platform/clock.ts';
import { GatehouseError } from '../security/errors.ts';

/**
 * The answer to an account operation while the account is locked (docs/reference/membership.md): 429 with
 * `Retry-After` until the lockout ends, not the wrong-code answer. The caller is signed in, so
 * the end of the lockout tells them nothing new, and the owner learns to wait instead of
 * retyping a right code that is not being checked. An admin lock has no end; such a caller's
 * sessions end with it, so only a request racing the lock sees it (told to wait a lockout time).
 */
export function accountLockedError(error: AccountLockedError, clock: Clock, lockoutSeconds: number): GatehouseError {
  const seconds = error.until === null ? lockoutSeconds : (error.until - clock.now()) / 1000;
  return new GatehouseError('GH_LOCKED_OUT', (m) => m.problemAccountLocked, {}, { retryAfterSeconds: Math.max(1, Math.ceil(seconds)) });
}
