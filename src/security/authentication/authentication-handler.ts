import type { Wording } from '../../i18n/phrase.ts';
import type { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import type { CredentialSources } from './credential-sources.ts';
import type { RevocationConcerns } from './revocation-concerns.ts';

/** How a scheme asks for credentials; the HTTP ring turns it into a 401 (or a redirect). */
export interface Challenge {
  /** The `WWW-Authenticate` challenge, when the scheme has one. */
  readonly wwwAuthenticate?: string;
  /**
   * The problem's `detail`: a phrase of the catalogues, written in the reader's language (the
   * built-in schemes give one for each of their reasons), or a text, the same in every language.
   */
  readonly detail?: Wording;
  /** A browser asking for a page should be sent to the login page instead. */
  readonly redirectToLogin?: boolean;
}

/**
 * One authentication scheme (Cookies, Bearer, ApiKey, or one of the application's own): reads a
 * request, returns a result. The built-in schemes are written against this contract alone, and
 * so can an application's (an HMAC-signed request header, a gateway's identity header, …):
 *
 * - `scheme` is the scheme's unique name. Policies name it (`authenticationSchemes`), the
 *   default-scheme choice returns it, a 403 lists it, and it should be the principal's identity's
 *   `authenticationType` (a non-empty one is what makes the identity authenticated).
 * - `authenticate` answers one of three things, and never throws for anything a caller sent
 *   (a throw is a 500):
 *   `AuthenticateResult.noResult()` when the request carries no credential of this scheme
 *   (another scheme may vouch, or the caller is anonymous); `AuthenticateResult.fail(scheme,
 *   reason)` when it carries one that does not hold (bad signature, expired, unknown): `reason`
 *   goes to the caller, so it is a fixed sentence that never repeats the credential (a text, or
 *   a phrase of the catalogues to be written in the caller's language);
 *   `AuthenticateResult.success(scheme, principal, expiresAt?)` with the caller's
 *   `ClaimsPrincipal` (and, for a credential that ends, its end in epoch ms). It may answer
 *   with the result or a promise of it (Gatehouse awaits either). It reads only the
 *   `AuthenticationRequest` (headers, parsed cookies, method, target and query), so it runs for
 *   HTTP requests and sockets alike, and it must not keep per-request state in the handler (one
 *   instance serves every request at once).
 * - `challenge` tells how to ask a caller it could not authenticate for credentials: its
 *   `WWW-Authenticate` value and the problem's `detail` (the 401 itself is the transport's).
 *   It is called with this scheme's own result (`noResult` or `fail`): a failure's `wording`, when
 *   it has one, is the detail in the reader's language, and its `message` the English that a
 *   header such as `error_description` carries.
 * - `credentials` declares where its credential travels (headers, cookies, `connection_init`
 *   fields): those headers are kept out of the log, answers to requests carrying them are not
 *   stored, sockets keep them to authenticate again, and `connection_init` maps onto them.
 * - `revocations` declares which revocation events may change what its credential is worth: a
 *   socket opened with it is authenticated again at each, and closed when it no longer holds.
 *
 * The two declarations are optional. A scheme without them reads nothing Gatehouse must guard
 * beyond the contract's own headers, takes no part in `connection_init`, and its sockets are
 * re-checked only at their credential's end — unless it takes the name of a built-in scheme,
 * whose declarations it then inherits (`declaredCredentials`, `declaredRevocations`).
 */
export interface AuthenticationHandler {
  readonly scheme: string;
  /** Where this scheme's credential travels; see `CredentialSources`. */
  readonly credentials?: CredentialSources;
  /** Which revocation events concern this scheme's credentials; see `RevocationConcerns`. */
  readonly revocations?: RevocationConcerns;
  authenticate(request: AuthenticationRequest): AuthenticateResult | Promise<AuthenticateResult>;
  /** The challenge for a caller this scheme could not authenticate; `result` is its own result. */
  challenge(result: AuthenticateResult, request: AuthenticationRequest): Challenge;
}
