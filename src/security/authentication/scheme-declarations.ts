import type { AuthenticationHandler } from './authentication-handler.ts';
import { credentialHeaderNames, type CredentialSources, NO_CREDENTIAL_SOURCES } from './credential-sources.ts';
import { NO_REVOCATION_CONCERNS, type RevocationConcerns } from './revocation-concerns.ts';
import { API_KEY_CREDENTIALS, API_KEY_REVOCATIONS, API_KEY_SCHEME } from './schemes/api-key/handler.ts';
import { BEARER_CREDENTIALS, BEARER_REVOCATIONS, BEARER_SCHEME } from './schemes/bearer/handler.ts';
import { COOKIES_REVOCATIONS, COOKIES_SCHEME } from './schemes/cookies/handler.ts';

/**
 * The headers the contract names as carrying credentials (`Authorization`, `X-Api-Key`,
 * `Cookie`): kept out of the log and making answers `no-store` whichever schemes are on.
 */
export const CONTRACT_CREDENTIAL_HEADERS: readonly string[] = Object.freeze(['authorization', 'x-api-key', 'cookie']);

/**
 * What a scheme that declares nothing, under a built-in scheme's name, is taken to read: what
 * the built-in reads (an application's own `Bearer` replacing Gatehouse's keeps its place in the
 * default choice by request shape, and its `connection_init`).
 */
const BUILT_IN_CREDENTIALS: ReadonlyMap<string, CredentialSources> = new Map([
  [BEARER_SCHEME, BEARER_CREDENTIALS],
  [API_KEY_SCHEME, API_KEY_CREDENTIALS],
  [COOKIES_SCHEME, Object.freeze({ headers: Object.freeze(['cookie']) })],
]);

const BUILT_IN_REVOCATIONS: ReadonlyMap<string, RevocationConcerns> = new Map([
  [BEARER_SCHEME, BEARER_REVOCATIONS],
  [API_KEY_SCHEME, API_KEY_REVOCATIONS],
  [COOKIES_SCHEME, COOKIES_REVOCATIONS],
]);

/** Where `handler`'s credential travels: its declaration, else its built-in namesake's, else nowhere Gatehouse must know of. */
export function declaredCredentials(handler: AuthenticationHandler): CredentialSources {
  return handler.credentials ?? BUILT_IN_CREDENTIALS.get(handler.scheme) ?? NO_CREDENTIAL_SOURCES;
}

/** Which revocation events concern `handler`'s credentials: its declaration, else its built-in namesake's, else none. */
export function declaredRevocations(handler: AuthenticationHandler): RevocationConcerns {
  return handler.revocations ?? BUILT_IN_REVOCATIONS.get(handler.scheme) ?? NO_REVOCATION_CONCERNS;
}

/**
 * The headers Gatehouse guards when `handlers` are the schemes: the contract's and each one's
 * declared (`cookie` for a scheme that reads cookies), in lower case. Kept out of the log, making
 * answers `no-store`, and kept by a socket from its upgrade request.
 */
export function guardedHeaders(handlers: readonly AuthenticationHandler[]): string[] {
  return credentialHeaderNames([{ headers: CONTRACT_CREDENTIAL_HEADERS }, ...handlers.map(declaredCredentials)]);
}
