import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationPolicy } from '../authorization/authorization-policy.ts';
import type { AuthorizationService } from '../authorization/authorization-service.ts';
import { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationHandler } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import type { AuthenticationSchemeProvider } from './authentication-scheme-provider.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';

/** The outcome of authenticating for a policy: the principal and what each scheme tried said. */
export interface PolicyAuthentication {
  readonly principal: ClaimsPrincipal;
  /** True when some scheme vouched for the caller. */
  readonly succeeded: boolean;
  /** The schemes consulted and their results, in order (for the challenge). */
  readonly attempts: readonly { readonly handler: AuthenticationHandler; readonly result: AuthenticateResult }[];
}

export type PolicyAuthorizationResult =
  | { readonly kind: 'success' }
  | { readonly kind: 'challenge' }
  | { readonly kind: 'forbid'; readonly schemes: readonly string[] };

/**
 * Authenticates a request for a policy, then authorizes it (ASP.NET's `PolicyEvaluator`).
 * The policy's schemes are tried when it names any (principals merged), else the default.
 */
export class PolicyEvaluator {
  private readonly successes = new WeakMap<AuthenticateResult, PolicyAuthentication>();

  constructor(
    private readonly schemes: AuthenticationSchemeProvider,
    private readonly authorization: AuthorizationService,
  ) {}

  /** Synchronous when the schemes answer synchronously (a remembered token or key). */
  authenticate(policy: AuthorizationPolicy | null, request: AuthenticationRequest): MaybePromise<PolicyAuthentication> {
    const schemes = policy?.authenticationSchemes ?? [];
    if (schemes.length > 1) return this.authenticateWithSchemes(schemes, request);
    // The common case, kept free of list building: one scheme, named or chosen by the request's shape.
    const handler = schemes.length === 1 ? this.schemes.get(schemes[0]!) : this.schemes.defaultFor(request);
    return andThen(handler.authenticate(request), (result) => this.authenticationOf(handler, result));
  }

  /** Schemes answer a remembered credential with the same success object: its outcome is built once. */
  private authenticationOf(handler: AuthenticationHandler, result: AuthenticateResult): PolicyAuthentication {
    if (result.kind !== 'success') return { principal: ClaimsPrincipal.anonymous(), succeeded: false, attempts: [{ handler, result }] };
    let authentication = this.successes.get(result);
    if (authentication === undefined) {
      authentication = Object.freeze({ principal: result.principal, succeeded: true, attempts: [{ handler, result }] });
      this.successes.set(result, authentication);
    }
    return authentication;
  }

  /** A policy naming several schemes: each is tried and the principals merged. */
  private async authenticateWithSchemes(schemes: readonly string[], request: AuthenticationRequest): Promise<PolicyAuthentication> {
    const handlers = schemes.map((scheme) => this.schemes.get(scheme));
    const attempts = [];
    for (const handler of handlers) attempts.push({ handler, result: await handler.authenticate(request) });
    const principals = attempts.flatMap(({ result }) => (result.kind === 'success' ? [result.principal] : []));
    const principal = principals.length === 1 ? principals[0]! : ClaimsPrincipal.merge(principals);
    return { principal, succeeded: principals.length > 0, attempts };
  }

  /** The one expression that splits 401 from 403: authenticated callers are forbidden, others challenged. */
  authorize(
    policy: AuthorizationPolicy,
    authentication: PolicyAuthentication,
    resource: unknown = null,
  ): MaybePromise<PolicyAuthorizationResult> {
    return andThen(this.authorization.decide(authentication.principal, resource, policy), (result): PolicyAuthorizationResult => {
      if (result.succeeded) return SUCCESS;
      return authentication.succeeded ? { kind: 'forbid', schemes: forbidSchemes(policy, authentication) } : CHALLENGE;
    });
  }
}

/** The policy's schemes, or the scheme that authenticated the caller when the policy names none. */
function forbidSchemes(policy: AuthorizationPolicy, authentication: PolicyAuthentication): readonly string[] {
  if (policy.authenticationSchemes.length > 0) return policy.authenticationSchemes;
  return authentication.attempts.flatMap(({ result }) => (result.kind === 'success' ? [result.scheme] : []));
}

const SUCCESS: PolicyAuthorizationResult = Object.freeze({ kind: 'success' });
const CHALLENGE: PolicyAuthorizationResult = Object.freeze({ kind: 'challenge' });
