export { AuthenticateResult } from './authenticate-result.ts';
export type { AuthenticationHandler, Challenge } from './authentication-handler.ts';
export { type AuthenticationRequest, singleHeader } from './authentication-request.ts';
export {
  AuthenticationSchemeProvider,
  type ForwardDefaultSelector,
  forwardByRequestShape,
} from './authentication-scheme-provider.ts';
export { PolicyEvaluator, type PolicyAuthentication } from './policy-evaluator.ts';
export {
  PolicyAuthorizationResult,
  type PolicyChallenge,
  type PolicyForbid,
  type PolicyRefusal,
  type PolicySuccess,
} from './policy-authorization-result.ts';
export { ApiKeyHandler, API_KEY_SCHEME, INVALID_API_KEY, MISSING_API_KEY, type ApiKeyValidator } from './schemes/api-key/handler.ts';
export { BearerHandler, BEARER_SCHEME, type BearerTokenValidation, type BearerTokenValidator } from './schemes/bearer/handler.ts';
export {
  CookiesHandler,
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
