import type { AuthorizationRequirement } from './authorization-requirement.ts';

export interface AuthorizationFailure {
  /** A handler called `fail` explicitly. */
  readonly failCalled: boolean;
  /** Requirements no handler succeeded. */
  readonly failedRequirements: readonly AuthorizationRequirement[];
  /** Reasons handlers gave to `fail`; for logs only. */
  readonly failureReasons: readonly string[];
}

export interface AuthorizationResult {
  readonly succeeded: boolean;
  readonly failure: AuthorizationFailure | null;
}

export const AUTHORIZATION_SUCCESS: AuthorizationResult = Object.freeze({ succeeded: true, failure: null });
