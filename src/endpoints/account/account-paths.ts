import { withQuery } from '../../pages/paths.ts';
import type { EndpointRequest } from '../endpoint.ts';
import { localReturnUrl } from '../return-url.ts';

/** Where the account endpoints send a browser, as full paths (the mount point's prefix included). */
export interface AccountRedirects {
  /** The login page, where a signed-out browser goes. */
  readonly login: string;
  /** Where a sign-in without a return URL ends, and where the profile's forms come back to. */
  readonly profile: string;
  /** The second step of a sign-in. */
  readonly twoFactorLogin: string;
}

/** `ReturnUrl` (the cookie scheme's name) or `returnUrl` of the query, kept only when it is a local path. */
export function returnUrlOf(request: Pick<EndpointRequest, 'query'>): string | null {
  return localReturnUrl(request.query.ReturnUrl ?? request.query.returnUrl);
}

/** `path?ReturnUrl=…` when there is a (local) return URL, else `path` alone. */
export function withReturnUrl(path: string, returnUrl: string | null): string {
  return withQuery(path, 'ReturnUrl', returnUrl);
}
