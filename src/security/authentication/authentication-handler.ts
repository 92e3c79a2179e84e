import type { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationRequest } from './authentication-request.ts';

/** How a scheme asks for credentials; the HTTP ring turns it into a 401 (or a redirect). */
export interface Challenge {
  /** The `WWW-Authenticate` challenge, when the scheme has one. */
  readonly wwwAuthenticate?: string;
  /** The problem's `detail`. */
  readonly detail?: string;
  /** A browser asking for a page should be sent to the login page instead. */
  readonly redirectToLogin?: boolean;
}

/** One authentication scheme (Cookies, Bearer, ApiKey, …): reads a request, returns a result. */
export interface AuthenticationHandler {
  readonly scheme: string;
  authenticate(request: AuthenticationRequest): AuthenticateResult | Promise<AuthenticateResult>;
  /** The challenge for a caller this scheme could not authenticate; `result` is its own result. */
  challenge(result: AuthenticateResult, request: AuthenticationRequest): Challenge;
}
