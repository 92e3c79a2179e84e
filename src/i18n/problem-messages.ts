/**
 * The problems' words (RFC 9457 lets `title` and `detail` follow the reader's language; `type`
 * and `code` never change): a title per status, and the details the hosts and routes give.
 */
export interface ProblemMessages {
  readonly problemTitleBadRequest: string;
  readonly problemTitleUnauthorized: string;
  readonly problemTitleForbidden: string;
  readonly problemTitleNotFound: string;
  readonly problemTitleMethodNotAllowed: string;
  readonly problemTitleRequestTimeout: string;
  readonly problemTitleConflict: string;
  readonly problemTitlePayloadTooLarge: string;
  readonly problemTitleUnsupportedMediaType: string;
  readonly problemTitleTooManyRequests: string;
  readonly problemTitleHeadersTooLarge: string;
  readonly problemTitleInternalServerError: string;
  readonly problemTitleBadGateway: string;
  readonly problemTitleServiceUnavailable: string;

  // The details of the hosts and routes.
  readonly problemRequestNotValid: string;
  readonly problemNoSuchResource: string;
  readonly problemRequestRefused: string;
  readonly problemInternalError: string;

  // The body, the URL and the headers of a request, as every host reads them.
  readonly problemContentTypeNotAccepted: string;
  readonly problemContentTypeNotValid: string;
  readonly problemContentLengthMismatch: string;
  readonly problemBodyTooLarge: string;
  readonly problemHeadersTooLarge: string;
  readonly problemRequestTimeout: string;
  readonly problemJsonBodyEmpty: string;
  readonly problemBodyNotJson: string;
  readonly problemJsonNotUtf8: string;
  readonly problemJsonTooDeep: (v: { readonly max: number }) => string;
  readonly problemMultipartMalformed: string;
  readonly problemNoFileUploads: string;
  readonly problemTooManyFields: (v: { readonly max: number }) => string;
  readonly problemNoBodyExpected: string;
  readonly problemFieldRequired: string;
  readonly problemFieldNotAllowed: string;
  readonly problemUrlNotValid: string;
  readonly problemUrlBadEscape: string;
  readonly problemFormPostsOnly: string;
  readonly problemFormExpired: string;
  readonly problemAntiforgeryTokenWrong: string;
  readonly problemCrossSiteAuthCookie: string;
  readonly problemCrossSiteRefreshCookie: string;
  readonly problemSocketOriginRefused: string;

  // A credential an authentication scheme refused: the problem's detail of its 401.
  readonly problemTokenMalformed: string;
  readonly problemTokenExpired: string;
  readonly problemTokenNotYetValid: string;
  readonly problemTokenWrongIssuer: string;
  readonly problemTokenWrongAudience: string;
  readonly problemTokenNotAccessToken: string;
  readonly problemTokenClaimMissing: string;
  readonly problemTokenAlgorithmNotAllowed: string;
  readonly problemTokenSignatureInvalid: string;
  readonly problemTokenSigningKeyUnknown: string;
  readonly problemTokenLifetimeTooLong: string;
  readonly problemTokenRevoked: string;
  readonly problemTokenRefused: string;
  readonly problemIssuerKeysUnavailable: string;
  readonly problemApiKeyMissing: string;
  readonly problemApiKeyInvalid: string;

  // The service's state: busy, shutting down, cut off from its store or its gateways.
  readonly problemRateLimited: string;
  readonly problemOverloaded: string;
  readonly problemShuttingDown: string;
  readonly problemRevocationsStale: string;
  readonly problemStoreUnavailable: string;
  readonly problemSmsFailed: string;

  // The routes' refusals: what is not there, sign-ins, codes and links.
  readonly problemNoSuchUser: string;
  readonly problemNoSuchSession: string;
  readonly problemNoSuchPasskey: string;
  readonly problemNoSuchProvider: string;
  readonly problemNoSuchFile: string;
  readonly problemAccountGone: string;
  readonly problemLimitAtMost: (v: { readonly max: number }) => string;
  readonly problemSignInFailed: string;
  readonly problemEnterLogin: string;
  readonly problemAccountLocked: string;
  readonly problemNoPendingTwoFactor: string;
  readonly problemNoPhoneForCode: string;
  readonly problemTwoFactorCodeRequired: string;
  readonly problemTwoFactorCodeInvalid: string;
  readonly problemNoPendingKey: string;
  readonly problemPhoneNumberFormat: string;
  readonly problemTextMessagesUnavailable: string;
  readonly problemResetLinkInvalid: string;
  readonly problemConfirmationLinkInvalid: string;
  readonly problemOrganizationSwitchCookieOnly: string;

  // Passkeys and external providers.
  readonly problemPasskeyChallenge: string;
  readonly problemPasskeyNotVerified: string;
  readonly problemPasskeyIdTooLong: string;
  readonly problemPasskeyIdMismatch: string;
  readonly problemPasskeyTaken: string;
  readonly problemPasskeyTooMany: string;
  readonly problemOnlyWayInPasskey: string;
  readonly problemOnlyWayInProvider: string;
  readonly problemProviderNotLinked: string;
  readonly problemExternalNotVerified: (v: { readonly provider: string }) => string;
  readonly problemExternalDeclined: (v: { readonly provider: string }) => string;
  readonly problemExternalUnavailable: (v: { readonly provider: string }) => string;
  readonly problemExternalNotStarted: string;
  readonly problemExternalSpent: string;
  readonly problemExternalSignInAgain: string;
  readonly problemExternalLinkTaken: (v: { readonly provider: string }) => string;
  readonly problemExternalLockedOut: string;
  readonly problemExternalEmailTaken: string;
}
