import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthorizationPolicy } from '../authorization/authorization-policy.ts';
import type { AuthorizationRequirement } from '../authorization/authorization-requirement.ts';
import type { AuthorizationResult } from '../authorization/authorization-result.ts';
import type { AuthorizationService } from '../authorization/authorization-service.ts';
import { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationHandler } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import type { AuthenticationSchemeProvider } from './authentication-scheme-provider.ts';
import { PolicyAuthorizationResult } from './policy-authorization-result.ts';

/** The outcome of authenticating for a policy: the principal and what each scheme tried said. */
export interface PolicyAuthentication {
  readonly principal: ClaimsPrincipal;
  /** True when some scheme vouched for the caller. */
  readonly succeeded: boolean;
  /** The schemes consulted and their results, in order (for the challenge). */
  readonly attempts: readonly { readonly handler: AuthenticationHandler; readonly result: AuthenticateResult }[];
}

/**
 * Authenticates a request for a policy, then authorizes it (ASP.NET's `PolicyEvaluator`).
 * The policy's schemes are tried when it names any (principals merged), else the default.
 *
 * It is the one place that decides between a challenge and a forbid, for every transport: a
 * route's policy (`authorize`), and a check inside an endpoint or a GraphQL resolver of a caller
 * the transport authenticated already (`authorizeResource`). Transports only render its
 * `PolicyAuthorizationResult`.
 */
export class PolicyEvaluator {
  constructor(
    private readonly schemes: AuthenticationSchemeProvider,
    private readonly authorization: AuthorizationService,
  ) {}

  async authenticate(policy: AuthorizationPolicy | null, request: AuthenticationRequest): Promise<PolicyAuthentication> {
    const handler = this.schemeFor(policy, request);
    if (handler === undefined) return this.authenticateWithSchemes(policy!.authenticationSchemes, request);
    // A scheme that answers on the spot (an application's own, reading a header) is not waited for.
    const answered = handler.authenticate(request);
    const result = isPromiseLike(answered) ? await answered : answered;
    const succeeded = result.kind === 'success';
    return { principal: succeeded ? result.principal : ClaimsPrincipal.anonymous(), succeeded, attempts: [{ handler, result }] };
  }

  /**
   * The one scheme that authenticates `request` for `policy`: the scheme it names, or the default
   * for the request when it names none; undefined when it names several (each is tried).
   */
  schemeFor(policy: AuthorizationPolicy | null, request: AuthenticationRequest): AuthenticationHandler | undefined {
    const schemes = policy?.authenticationSchemes ?? [];
    if (schemes.length > 1) return undefined;
    return schemes.length === 1 ? this.schemes.get(schemes[0]!) : this.schemes.defaultFor(request);
  }

  /** `policy` as a rule on the principal alone, when it is one (`AuthorizationService.principalRule`). */
  principalRule(policy: AuthorizationPolicy): ((user: ClaimsPrincipal) => boolean) | undefined {
    return this.authorization.principalRule(policy);
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

  /**
   * The outcome of a request for an endpoint, once `authenticate` has run with the same policy and
   * request. With a policy: success when the caller meets it (about `resource`), else a forbid for
   * a caller some scheme vouched for and a challenge for any other. Without one (an endpoint open
   * to anyone that still reads credentials): success, unless a credential presented does not hold.
   */
  async authorize(
    policy: AuthorizationPolicy | null,
    authentication: PolicyAuthentication,
    request: AuthenticationRequest,
    resource: unknown = null,
  ): Promise<PolicyAuthorizationResult> {
    if (policy === null) return authentication.attempts.some(isFailure) ? challengeOf(authentication, request) : SUCCESS;
    const kind = outcomeOf(await this.authorization.authorize(authentication.principal, resource, policy), authentication.succeeded);
    if (kind === 'success') return SUCCESS;
    return kind === 'forbid' ? PolicyAuthorizationResult.forbid(forbidSchemes(policy, authentication)) : challengeOf(authentication, request);
  }

  /**
   * The outcome of a check inside an endpoint (a resource check, a GraphQL field or operation) for
   * `user`, whom the transport authenticated from `request` already (ASP.NET's `AuthorizeAsync(User,
   * resource, policy)` followed by `Forbid()` or `Challenge()`). A forbid names the schemes that
   * authenticated the caller; a challenge asks what a route protected by the policy would have
   * asked: the policy's schemes, or the default scheme for the request.
   */
  async authorizeResource(
    user: ClaimsPrincipal,
    resource: unknown,
    policy: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[],
    request: AuthenticationRequest,
  ): Promise<PolicyAuthorizationResult> {
    const kind = outcomeOf(await this.authorization.authorize(user, resource, policy), user.isAuthenticated);
    if (kind === 'success') return SUCCESS;
    if (kind === 'forbid') return PolicyAuthorizationResult.forbid(authenticatedSchemes(user));
    const asked = policy instanceof AuthorizationPolicy ? policy : null;
    return challengeOf(await this.authenticate(asked, request), request);
  }
}

/** The one expression that splits challenge from forbid: a refused caller known to a scheme is forbidden, any other challenged. */
function outcomeOf(result: AuthorizationResult, authenticated: boolean): PolicyAuthorizationResult['kind'] {
  return result.succeeded ? 'success' : authenticated ? 'forbid' : 'challenge';
}

/**
 * The challenge of a caller no scheme vouched for: that of the schemes that judged a credential
 * bad (their `invalid_token`), or, when none was presented, of every scheme consulted.
 */
function challengeOf(authentication: PolicyAuthentication, request: AuthenticationRequest): PolicyAuthorizationResult {
  const failed = authentication.attempts.filter(isFailure);
  const challenges = (failed.length > 0 ? failed : authentication.attempts).map(({ handler, result }) => handler.challenge(result, request));
  return PolicyAuthorizationResult.challenge(challenges, authentication);
}

function isFailure({ result }: PolicyAuthentication['attempts'][number]): boolean {
  return result.kind === 'fail';
}

/** The schemes of the caller's authenticated identities. */
function authenticatedSchemes(user: ClaimsPrincipal): string[] {
  return user.identities.filter((identity) => identity.isAuthenticated).map((identity) => identity.authenticationType ?? '');
}

/** The policy's schemes, or the scheme that authenticated the caller when the policy names none. */
function forbidSchemes(policy: AuthorizationPolicy, authentication: PolicyAuthentication): readonly string[] {
  if (policy.authenticationSchemes.length > 0) return policy.authenticationSchemes;
  return authentication.attempts.flatMap(({ result }) => (result.kind === 'success' ? [result.scheme] : []));
}

const SUCCESS = PolicyAuthorizationResult.success();

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}
