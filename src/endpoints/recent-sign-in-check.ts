import type { RecentSignIn } from '../identity/recent-sign-in.ts';
import type { SessionManager } from '../identity/sessions.ts';
import { BEARER_SCHEME, COOKIES_SCHEME } from '../security/authentication/index.ts';
import type { AccessTokenValidator } from '../tokens/access-token-validator.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { CookieSignIn } from './cookie-sign-in.ts';
import type { CookieSource } from './cookies.ts';

/** A request as the check reads it: its caller and the credentials it presented. */
export interface SignedInRequest extends CookieSource {
  readonly user: ClaimsPrincipal;
  readonly headers: { readonly cookie?: string | string[] | undefined; readonly authorization?: string | string[] | undefined };
}

/** What the check reads: the rule, and the credentials that say when the caller signed in. */
export interface RecentSignInCheckDependencies {
  readonly recentSignIn: RecentSignIn;
  readonly bearerTokens: Pick<AccessTokenValidator, 'validate'>;
  readonly sessions: Pick<SessionManager, 'current'>;
}

/**
 * The recent-sign-in rule (`RecentSignIn`) at the entry of a route: when the caller of the
 * request signed in, read from the credential the pipeline has just accepted — the cookie
 * session's sign-in (which a re-issue keeps), or the access token's `auth_time` (which a refresh
 * keeps). Any other caller (an API key, an application's own bearer scheme) has no sign-in here.
 */
export class RecentSignInCheck {
  constructor(
    private readonly dependencies: RecentSignInCheckDependencies,
    private readonly cookies: CookieSignIn,
  ) {}

  /** Throws `GH_REAUTHENTICATION_REQUIRED` (403) unless the caller signed in at most `REAUTH_MINUTES` ago. */
  async require(request: SignedInRequest): Promise<void> {
    this.dependencies.recentSignIn.require(await this.signedInAt(request));
  }

  /** Whether the caller signed in recently enough (for pages that offer a change or ask to sign in first). */
  async isRecent(request: SignedInRequest): Promise<boolean> {
    return this.dependencies.recentSignIn.isRecent(await this.signedInAt(request));
  }

  /** When the caller signed in (epoch ms), or null when the credential does not say. */
  private async signedInAt(request: SignedInRequest): Promise<number | null> {
    switch (request.user.identity?.authenticationType) {
      case BEARER_SCHEME:
        return this.tokenAuthTime(request);
      case COOKIES_SCHEME:
        return this.sessionSignIn(request);
      default:
        return null;
    }
  }

  /** The `auth_time` of the request's access token (verified a moment ago by the pipeline: remembered, so no second signature check). */
  private async tokenAuthTime(request: SignedInRequest): Promise<number | null> {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && /^bearer /i.test(header) ? header.slice('Bearer '.length) : null;
    if (token === null) return null;
    const verified = await this.dependencies.bearerTokens.validate(token);
    return verified.valid ? verified.authTime : null;
  }

  /** The sign-in of the request's cookie session, looked at without counting as another use. */
  private async sessionSignIn(request: SignedInRequest): Promise<number | null> {
    const token = this.cookies.presentedSession(request);
    if (token === null) return null;
    const session = await this.dependencies.sessions.current(token);
    return session.valid ? session.signedInAt : null;
  }
}
