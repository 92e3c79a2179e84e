import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import { CookieProtector } from '../../security/authentication/index.ts';
import { type CookieSource, readCookie, type ResponseCookies } from '../cookies.ts';

/** The round trip to the provider and back must happen within ten minutes. */
const CORRELATION_MS = 10 * 60 * 1000;

/** What the correlation cookie carries to the callback; sealed, never seen by the provider. */
export interface Correlation {
  readonly provider: string;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly returnUrl: string | null;
  /** Set when a signed-in user links this provider from the profile. */
  readonly linkUserId: number | null;
  readonly expiresAt: number;
}

/** What the flow seals at its start: everything but its end, which the cookie sets. */
export type StartedFlow = Omit<Correlation, 'expiresAt'>;

/** What the cookie needs: its key, whether it is `__Host-` and `Secure`, and the time. */
export interface CorrelationCookieDependencies {
  readonly secret: string;
  readonly production: boolean;
  readonly clock: Pick<Clock, 'now'>;
}

/**
 * The short-lived cookie that binds the provider's callback to the browser that started the
 * flow: `state`, `nonce` and the PKCE verifier, sealed (AES-GCM), for ten minutes, `SameSite=Lax`
 * so that the provider's redirect back still carries it.
 */
export class CorrelationCookie {
  private readonly protector: CookieProtector;
  private readonly name: string;

  constructor(private readonly dependencies: CorrelationCookieDependencies) {
    this.protector = new CookieProtector(dependencies.secret, 'gh.oidc');
    this.name = dependencies.production ? '__Host-gh.oidc' : 'gh.oidc';
  }

  /** Seals `flow` into the cookie, to expire with the round trip's time. */
  set(cookies: ResponseCookies, flow: StartedFlow): void {
    const value: Correlation = { ...flow, expiresAt: this.dependencies.clock.now() + CORRELATION_MS };
    cookies.set(this.name, this.protector.protect(JSON.stringify(value)), { ...this.attributes(), maxAge: CORRELATION_MS / 1000 });
  }

  clear(cookies: ResponseCookies): void {
    cookies.set(this.name, '', { ...this.attributes(), maxAge: 0 });
  }

  /** The flow the request's cookie carries for `provider`, while it lasts; null for none, a forged one or another provider's. */
  open(request: CookieSource, provider: string): Correlation | null {
    const sealed = readCookie(request, this.name);
    const opened = sealed === undefined ? null : parseCorrelation(this.protector.unprotect(sealed));
    return opened !== null && opened.provider === provider && opened.expiresAt > this.dependencies.clock.now() ? opened : null;
  }

  private attributes() {
    return { path: '/', httpOnly: true, sameSite: 'lax', secure: this.dependencies.production } as const;
  }
}

/** The flow's server-side id: a hash of its state, so the store never holds a live state. */
export function correlationId(opened: Correlation): string {
  return createHash('sha256').update(`${opened.provider}\0${opened.state}`).digest('hex');
}

function parseCorrelation(plain: string | null): Correlation | null {
  if (plain === null) return null;
  try {
    const value = JSON.parse(plain) as Correlation;
    return typeof value.state === 'string' && typeof value.nonce === 'string' && typeof value.verifier === 'string' ? value : null;
  } catch {
    return null;
  }
}
