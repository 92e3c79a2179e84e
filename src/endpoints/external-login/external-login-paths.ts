/**
 * Where external sign-in sends the browser and what it registers with providers: the membership
 * paths under their prefix (the Fastify host's `MembershipPaths` is one).
 */
export interface ExternalLoginPaths {
  readonly login: string;
  readonly profile: string;
  /** The second step of a sign-in. */
  readonly twoFactorLogin: string;
  /** `path?ReturnUrl=…` when `returnUrl` is a local path, else `path` alone. */
  withReturnUrl(path: string, returnUrl: string | null | undefined): string;
  /** The login page, told where to come back to. */
  loginFor(returnUrl: string): string;
  /** The redirect URI registered with a provider: `PUBLIC_URL` + the callback's path. */
  externalRedirectUri(publicUrl: URL, provider: string): string;
}
