export { AuthenticateResult } from './authenticate-result.ts';
export type { AuthenticationHandler, Challenge } from './authentication-handler.ts';
export { type AuthenticationRequest, requestPath, singleHeader } from './authentication-request.ts';
export {
  AuthenticationSchemeProvider,
  type ForwardDefaultSelector,
  forwardByRequestShape,
  requestShapeSelector,
  type ShapeCandidate,
} from './authentication-scheme-provider.ts';
export type { CredentialSources } from './credential-sources.ts';
export { concernsCredential, NO_REVOCATION_CONCERNS, type RevocationConcerns, type RevocationKind } from './revocation-concerns.ts';
export { declaredCredentials, declaredRevocations, guardedHeaders } from './scheme-declarations.ts';
export { PolicyEvaluator, type PolicyAuthentication } from './policy-evaluator.ts';
export {
  PolicyAuthorizationResult,
  type PolicyChallenge,
  type PolicyForbid,
  type PolicyRefusal,
  type PolicySuccess,
} from './policy-authorization-result.ts';
export { ApiKeyHandler, API_KEY_CREDENTIALS, API_KEY_REVOCATIONS, API_KEY_SCHEME, INVALID_API_KEY, MISSING_API_KEY, type ApiKeyValidator } from './schemes/api-key/handler.ts';
export { BearerHandler, BEARER_CREDENTIALS, BEARER_REVOCATIONS, BEARER_SCHEME, type BearerTokenValidation, type BearerTokenValidator } from './schemes/bearer/handler.ts';
export {
  CookiesHandler,
  COOKIES_REVOCATIONS,
  COOKIES_SCHEME,
  cookieTicketOf,
  type CookieSessionValidation,
  type CookieSessionValidator,
  type SessionClient,
  type CookieTicket,
} from './schemes/cookies/handler.ts';
export { CookieProtector } from './schemes/cookies/cookie-protector.ts';
export { JwtBearerHandler, externalJwtBearer } from './schemes/jwt-bearer/handler.ts';
export { JwtBearerOptionsError, type ClaimSource, type JwtBearerOptions, type PublicKeyInput } from './schemes/jwt-bearer/options.ts';
export { IssuerMetadataError } from './schemes/jwt-bearer/openid-configuration.ts';
