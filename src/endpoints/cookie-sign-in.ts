import type { Config } from '../config/config.ts';
import type { PresentedSession, SignedInSession } from '../identity/sessions.ts';
import { signInClient } from '../identity/sign-in-client.ts';
import type { SignInGrant, TwoFactorPending } from '../identity/sign-in-manager.ts';
import type { Clock } from '../platform/clock.ts';
import type { SignInMethod, User } from '../store/ports.ts';
import type { KeyRing } from '../tokens/key-ring.ts';
import { CookieProtector } from '../security/authentication/index.ts';
import { type CookieSource, readCookie, type ResponseCookies } from './cookies.ts';
import { authCookieName, authCookieProtector } from '../schemes/auth-cookie.ts';
import { clearAuthCookie, setAuthCookie } from './auth-cookie.ts';

/** A browser's request as a sign-in reads it: its cookies, its address and its user agent. */
export interface BrowserRequest extends CookieSource {
  readonly ip: string;
  readonly headers: { readonly cookie?: string | string[] | undefined; readonly 'user-agent'?: string | string[] | undefined };
}

/** The first step's proof lasts five minutes (docs/reference/http.md). */
const TWO_FACTOR_MS = 5 * 60 * 1000;
/** "Remember this browser" skips the second step for 14 days, until the next security change. */
const REMEMBER_CLIENT_MS = 14 * 24 * 60 * 60 * 1000;

/** A provider's login to link to the user when the second step succeeds: the first step matched the user by e-mail. */
export interface PendingLink {
  readonly provider: string;
  readonly subject: string;
}

/** What the second step does besides opening the session. */
export interface TwoFactorCompletion {
  /** What the session records: `two-factor` after a password, `external:<provider>` after a provider. */
  readonly method: SignInMethod;
  readonly link?: PendingLink | undefined;
}

interface PendingCookie extends TwoFactorPending, Partial<TwoFactorCompletion> {
  /** Required here: the second step spends the cookie by it. */
  readonly startedAt: number;
  readonly persistent: boolean;
  readonly expiresAt: number;
}

/** What the cookies of a sign-in need: their settings, the time, and the cookie key. */
export interface CookieSignInDependencies {
  readonly config: Config;
  readonly clock: Clock;
  readonly keyRing: Pick<KeyRing, 'secrets'>;
}

interface RememberedCookie {
  readonly userId: number;
  readonly securityStamp: number;
  readonly expiresAt: number;
}

/**
 * The cookies of a browser sign-in: the auth cookie with its session, the short-lived two-factor
 * cookie that carries who passed the password step to the second step, and the remember-client
 * cookie `gh.2fa`. The two-factor cookies hold sealed JSON (AES-GCM, one key per purpose); both
 * name the user's security stamp, so a security change voids them.
 */
export class CookieSignIn {
  private readonly sessionProtector: CookieProtector;
  private readonly pendingProtector: CookieProtector;
  private readonly rememberProtector: CookieProtector;
  readonly authCookie: string;
  private readonly pendingCookie: string;
  private readonly rememberCookie: string;

  constructor(private readonly dependencies: CookieSignInDependencies) {
    const secret = dependencies.keyRing.secrets.cookie;
    const prefix = dependencies.config.production ? '__Host-' : '';
    this.sessionProtector = authCookieProtector(secret);
    this.pendingProtector = new CookieProtector(secret, 'gh.twofactor');
    this.rememberProtector = new CookieProtector(secret, 'gh.2fa');
    this.authCookie = authCookieName(dependencies.config);
    this.pendingCookie = `${prefix}gh.twofactor`;
    this.rememberCookie = `${prefix}gh.2fa`;
  }

  /** The session token in the auth cookie the request carries, when it opens. */
  presentedSession(request: CookieSource): string | null {
    const value = readCookie(request, this.authCookie);
    return value === undefined ? null : this.sessionProtector.unprotect(value);
  }

  /** The request's cookie session and where the request comes from, for a use case that reads or renews it; null without one. */
  presented(request: BrowserRequest): PresentedSession | null {
    const token = this.presentedSession(request);
    return token === null ? null : { token, client: signInClient(request.ip, request.headers['user-agent']) };
  }

  /** What a browser's sign-in is granted: a session in place of the one this browser holds (no fixation). */
  sessionGrant(request: BrowserRequest, persistent: boolean, method: SignInMethod): SignInGrant {
    return { kind: 'session', persistent, method, client: signInClient(request.ip, request.headers['user-agent']), replacing: this.presentedSession(request) };
  }

  /** The session a completed sign-in opened under its `sessionGrant` goes to the browser. */
  setGrantedSession(request: BrowserRequest, cookies: ResponseCookies, result: { readonly session?: SignedInSession }): void {
    if (result.session === undefined) throw new Error('The sign-in was granted no cookie session.');
    this.setSession(request, cookies, result.session);
  }

  /** The browser holds `session` from now on (a sign-in's, or one a security change re-issued); a pending second step is over. */
  setSession(request: BrowserRequest, cookies: ResponseCookies, session: SignedInSession): void {
    setAuthCookie(cookies, this.dependencies.config, { ...session, value: this.sessionProtector.protect(session.token) }, this.dependencies.clock.now());
    if (readCookie(request, this.pendingCookie) !== undefined) this.clear(cookies, this.pendingCookie);
  }

  /** The browser forgets its auth cookie, whose session has ended. */
  forgetSession(cookies: ResponseCookies): void {
    clearAuthCookie(cookies, this.dependencies.config);
  }

  /**
   * The password was right: the second step has five minutes, on this browser only, and works
   * once (the sign-in spends the cookie in the store by `startedAt`; clearing it in the browser
   * alone would leave a captured copy working). `completion` travels sealed with it: nothing of it
   * happens unless the second step succeeds.
   */
  startTwoFactor(cookies: ResponseCookies, user: User, persistent: boolean, completion: TwoFactorCompletion): void {
    const startedAt = this.dependencies.clock.now();
    const value: PendingCookie = { userId: user.id, securityStamp: user.securityStamp, startedAt, persistent, expiresAt: startedAt + TWO_FACTOR_MS, ...completion };
    this.set(cookies, this.pendingCookie, this.pendingProtector.protect(JSON.stringify(value)), { maxAge: TWO_FACTOR_MS / 1000 });
  }

  /** Who passed the first step on this browser, while the two-factor cookie lasts. */
  pendingTwoFactor(request: BrowserRequest): PendingCookie | null {
    const value = this.open<PendingCookie>(request, this.pendingCookie, this.pendingProtector);
    return value !== null && typeof value.persistent === 'boolean' && Number.isFinite(value.startedAt) ? value : null;
  }

  rememberClient(cookies: ResponseCookies, user: User): void {
    const expiresAt = this.dependencies.clock.now() + REMEMBER_CLIENT_MS;
    const value: RememberedCookie = { userId: user.id, securityStamp: user.securityStamp, expiresAt };
    this.set(cookies, this.rememberCookie, this.rememberProtector.protect(JSON.stringify(value)), {
      maxAge: REMEMBER_CLIENT_MS / 1000,
      expires: new Date(expiresAt),
    });
  }

  /** Whether this browser's remember-client cookie is the user's, unexpired, with the current security stamp. */
  rememberedClient(request: BrowserRequest): (user: User) => boolean {
    const value = this.open<RememberedCookie>(request, this.rememberCookie, this.rememberProtector);
    return (user) => value !== null && value.userId === user.id && value.securityStamp === user.securityStamp;
  }

  private open<T extends { userId: number; securityStamp: number; expiresAt: number }>(
    request: BrowserRequest,
    name: string,
    protector: CookieProtector,
  ): T | null {
    const sealed = readCookie(request, name);
    const plain = sealed === undefined ? null : protector.unprotect(sealed);
    if (plain === null) return null;
    try {
      const value = JSON.parse(plain) as T;
      const wellFormed = Number.isInteger(value.userId) && Number.isInteger(value.securityStamp) && typeof value.expiresAt === 'number';
      return wellFormed && value.expiresAt > this.dependencies.clock.now() ? value : null;
    } catch {
      return null;
    }
  }

  private set(cookies: ResponseCookies, name: string, value: string, lifetime: { maxAge: number; expires?: Date }): void {
    cookies.set(name, value, { ...this.attributes(), ...lifetime });
  }

  private clear(cookies: ResponseCookies, name: string): void {
    cookies.set(name, '', { ...this.attributes(), expires: new Date(0), maxAge: 0 });
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'lax', path: '/', secure: this.dependencies.config.production } as const;
  }
}
