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
}
