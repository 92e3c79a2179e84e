import type { ProblemMessages } from './problem-messages.ts';

/** The problems in English: the titles are HTTP's reason phrases. */
export const enProblems: ProblemMessages = {
  problemTitleBadRequest: 'Bad Request',
  problemTitleUnauthorized: 'Unauthorized',
  problemTitleForbidden: 'Forbidden',
  problemTitleNotFound: 'Not Found',
  problemTitleMethodNotAllowed: 'Method Not Allowed',
  problemTitleRequestTimeout: 'Request Timeout',
  problemTitleConflict: 'Conflict',
  problemTitlePayloadTooLarge: 'Payload Too Large',
  problemTitleUnsupportedMediaType: 'Unsupported Media Type',
  problemTitleTooManyRequests: 'Too Many Requests',
  problemTitleHeadersTooLarge: 'Request Header Fields Too Large',
  problemTitleInternalServerError: 'Internal Server Error',
  problemTitleBadGateway: 'Bad Gateway',
  problemTitleServiceUnavailable: 'Service Unavailable',
};
