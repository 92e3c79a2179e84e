import type { Clock } from '../platform/clock.ts';
import { GatehouseError } from '../security/errors.ts';

/**
 * The rule for changes that add a way into an account or take a factor away (adding a passkey,
 * linking an external login, setting up or replacing the authenticator, a phone number for
 * sign-in codes, turning two-factor off, changing the e-mail): they need a sign-in — password,
 * passkey, second factor or external provider — at most `REAUTH_MINUTES` old (OWASP ASVS 5.0
 * 7.5.1). A copied cookie or access token proves only that someone holds it, not who: without
 * this, a thief's passkey would outlive the victim's password reset (decision 0065).
 *
 * What counts as the sign-in's time is the caller's to say: a cookie session's sign-in (kept when
 * a self-service change re-issues it), an access token's `auth_time` (kept by every refresh).
 * Null — a token that carries none, a caller authenticated by another scheme — is never recent.
 */
export class RecentSignIn {
  constructor(
    private readonly clock: Clock,
    /** `REAUTH_MINUTES` in milliseconds. */
    private readonly maxAgeMs: number,
  ) {}

  /** Whether a sign-in at `signedInAt` (epoch ms) is recent enough now. */
  isRecent(signedInAt: number | null): boolean {
    if (signedInAt === null) return false;
    const age = this.clock.now() - signedInAt;
    // A sign-in from the future (a clock that moved back) proves nothing either.
    return age >= -CLOCK_DRIFT_MS && age <= this.maxAgeMs;
  }

  /** Throws `GH_REAUTHENTICATION_REQUIRED` (403) unless the sign-in at `signedInAt` is recent. */
  require(signedInAt: number | null): void {
    if (!this.isRecent(signedInAt)) throw reauthenticationRequired(this.maxAgeMs);
  }
}

/** An access token's `auth_time` has whole seconds, and instances' clocks differ a little. */
const CLOCK_DRIFT_MS = 30_000;

function reauthenticationRequired(maxAgeMs: number): GatehouseError {
  const minutes = Number((maxAgeMs / 60_000).toFixed(2));
  return new GatehouseError(
    'GH_REAUTHENTICATION_REQUIRED',
    (m) => m.errorRecentSignInRequired({ minutes }),
    { maxAgeSeconds: Math.round(maxAgeMs / 1000) },
  );
}
