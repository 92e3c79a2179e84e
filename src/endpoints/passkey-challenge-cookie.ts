import type { Config } from '../config/config.ts';
import type { Clock } from '../platform/clock.ts';
import { CookieProtector } from '../security/authentication/index.ts';
import type { KeyRing } from '../tokens/key-ring.ts';
import { type CookieSource, readCookie, type ResponseCookies } from './cookies.ts';

interface ChallengeValue {
  readonly challenge: string;
  readonly expiresAt: number;
}

/**
 * The challenge of a passkey sign-in, bound to the browser that asked for the options: a sealed,
 * HttpOnly, SameSite=Strict cookie `gh.passkey` (`__Host-gh.passkey` in production) that lives as
 * long as the challenge, five minutes. The cookie only says which challenge this browser holds;
 * the store says whether it is still unspent (docs/passkeys.md).
 */
export class PasskeyChallengeCookie {
  private readonly protector: CookieProtector;
  private readonly name: string;

  constructor(private readonly dependencies: { readonly config: Config; readonly clock: Clock; readonly keyRing: Pick<KeyRing, 'secrets'> }) {
    this.protector = new CookieProtector(dependencies.keyRing.secrets.cookie, 'gh.passkey');
    this.name = dependencies.config.production ? '__Host-gh.passkey' : 'gh.passkey';
  }

  set(cookies: ResponseCookies, challenge: string, expiresAt: number): void {
    const value: ChallengeValue = { challenge, expiresAt };
    const maxAge = Math.max(0, Math.floor((expiresAt - this.dependencies.clock.now()) / 1000));
    cookies.set(this.name, this.protector.protect(JSON.stringify(value)), { ...this.attributes(), maxAge });
  }

  /** The challenge this browser holds, while its cookie lasts; null otherwise. */
  read(request: CookieSource): string | null {
    const sealed = readCookie(request, this.name);
    const plain = sealed === undefined ? null : this.protector.unprotect(sealed);
    if (plain === null) return null;
    try {
      const value = JSON.parse(plain) as ChallengeValue;
      const wellFormed = typeof value.challenge === 'string' && typeof value.expiresAt === 'number';
      return wellFormed && value.expiresAt > this.dependencies.clock.now() ? value.challenge : null;
    } catch {
      return null;
    }
  }

  clear(cookies: ResponseCookies): void {
    cookies.set(this.name, '', { ...this.attributes(), expires: new Date(0), maxAge: 0 });
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'strict', path: '/', secure: this.dependencies.config.production } as const;
  }
}
