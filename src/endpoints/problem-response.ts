import type { SignInFailure } from '../identity/sign-in-result.ts';
import { PROBLEM_JSON, problem, type ProblemBody } from '../security/problem-details.ts';
import type { EndpointResponse } from './endpoint.ts';

/** A problem+json answer, with the headers that go with it (`retry-after`, `www-authenticate`). */
export function problemResponse(body: ProblemBody, headers: Readonly<Record<string, string>> = {}): EndpointResponse {
  return { status: body.status, headers: { ...headers, 'content-type': PROBLEM_JSON }, body };
}

/**
 * A failed sign-in as docs/reference/http.md answers it, on every sign-in route: 401 problem+json with
 * `succeeded:false` and only the flags SignInManager chose to reveal (never the user it found).
 */
export function signInFailureProblem(result: SignInFailure): ProblemBody {
  const flags = {
    ...(result.requiresTwoFactor ? { requiresTwoFactor: true } : {}),
    ...(result.isLockedOut ? { isLockedOut: true } : {}),
    ...(result.isNotAllowed ? { isNotAllowed: true } : {}),
  };
  return problem('GH_SIGNIN_FAILED', (m) => m.problemSignInFailed, { succeeded: false, ...flags });
}
