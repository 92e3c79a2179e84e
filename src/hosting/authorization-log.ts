import type { Logger } from 'pino';
import type { AuthorizationFailure } from '../security/authorization/index.ts';
import type { ClaimsPrincipal } from '../security/claims/claims-principal.ts';

/**
 * Each failed authorization at debug level, as ASP.NET logs "Authorization failed. These
 * requirements were not met": the requirements by description (or class), the reasons handlers
 * gave, and the caller's subject. The answer itself names none of them.
 */
export function logAuthorizationFailure(
  log: Pick<Logger, 'debug'> & { isLevelEnabled?(level: string): boolean },
): (failure: AuthorizationFailure, user: ClaimsPrincipal) => void {
  return (failure, user) => {
    // Pino's test: the entry is not even built below debug (every anonymous 401 passes here).
    if (log.isLevelEnabled?.('debug') === false) return;
    log.debug(
      {
        requirements: failure.failedRequirements.map((requirement) => requirement.description ?? requirement.constructor.name),
        reasons: failure.failureReasons,
        failCalled: failure.failCalled,
        subject: user.subject,
      },
      'authorization failed: these requirements were not met',
    );
  };
}
