/**
 * Cross-site protection for the cookie scheme (docs/reference/http.md). A browser attaches the auth
 * cookie to requests other sites make it send (SameSite=Lax still lets top-level navigations
 * through, and same-site pages are not cross-site to it), so an unsafe request authenticated by
 * cookie must show it came from an origin we trust:
 *
 *   Origin present    → it must equal the PUBLIC_URL origin or one of CORS_ORIGINS; `null` never passes;
 *   Origin absent     → `Sec-Fetch-Site` must be absent (old browsers, non-browser clients),
 *                       `same-origin` or `none` (typed by the user); `same-site`/`cross-site` fail.
 */

export const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface CrossSiteRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Decides for one request; built once with the trusted origins (serialised: `https://host[:port]`). */
export class CrossSitePolicy {
  private readonly trusted: ReadonlySet<string>;

  constructor(trustedOrigins: readonly string[]) {
    this.trusted = new Set(trustedOrigins.map((origin) => new URL(origin).origin));
  }

  /** True when the request may go on. Safe methods always may: they must not change anything. */
  allows(request: CrossSiteRequest): boolean {
    if (!UNSAFE_METHODS.has(request.method)) return true;
    const origin = request.headers.origin;
    // Sent twice: nothing a browser does; refuse rather than guess which one counts.
    if (Array.isArray(origin)) return false;
    if (origin !== undefined) return origin !== 'null' && this.trusted.has(origin);
    const site = request.headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin' || site === 'none';
  }
}
