import type { AuthenticateResult, AuthenticationHandler, AuthenticationRequest, PolicyAuthentication, PolicyEvaluator } from '../security/authentication/index.ts';
import { PolicyAuthorizationResult } from '../security/authentication/index.ts';
import {
  type AuthorizationMetadata,
  type AuthorizationPolicy,
  isAnonymousEndpoint,
  type PolicyProvider,
  resolveEndpointPolicy,
} from '../security/authorization/index.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';

/** What authorizes endpoints: the application's policies and the evaluator of its schemes. */
export interface EndpointAuthorizationOptions {
  readonly policies: PolicyProvider<string>;
  readonly evaluator: PolicyEvaluator;
  /**
   * The verdicts schemes gave before on credentials presented again (schemes/credential-verdicts.ts):
   * with them, a caller they vouch for is authorized at once (`ResolvedEndpointAuthorization.recognize`).
   */
  readonly verdicts?: RememberedVerdicts;
}

/** A memory of scheme successes a host can read without waiting. */
export interface RememberedVerdicts {
  recallFor(handler: AuthenticationHandler, request: AuthenticationRequest): Extract<AuthenticateResult, { kind: 'success' }> | undefined;
}

/** What an endpoint says about its protection, and the groups it is mounted in (nearest first). */
export interface EndpointProtection {
  readonly authorization?: AuthorizationMetadata;
  readonly groups?: readonly AuthorizationMetadata[];
  /**
   * An anonymous endpoint that still reads credentials (GraphQL, whose fields carry their own
   * policies): valid ones become the caller, invalid ones are refused, none leave it anonymous.
   */
  readonly readCredentials?: boolean;
}

/**
 * The caller of one request and the one authorization outcome for it. `authentication` is what
 * the schemes made of the request (none for an anonymous endpoint): a host reads it for what
 * follows a success, such as the auth cookie's cross-site check and renewal.
 */
export interface EndpointAuthorization {
  readonly principal: ClaimsPrincipal;
  readonly outcome: PolicyAuthorizationResult;
  readonly authentication?: PolicyAuthentication;
}

/** Authenticates and authorizes one request for the endpoint it was made for. */
export type EndpointAuthorizer = (request: AuthenticationRequest) => Promise<EndpointAuthorization>;

const ANONYMOUS: EndpointAuthorization = Object.freeze({ principal: ClaimsPrincipal.anonymous(), outcome: PolicyAuthorizationResult.success() });

/**
 * The authentication and authorization of one endpoint, as a function of the request alone: the
 * policy is resolved here, once, when the endpoint is defined (an unknown policy name throws
 * now, not per request), as the Fastify pipeline resolves a route's when it is registered.
 *
 *   anonymous endpoint              credentials are not read; the caller is anonymous
 *   endpoint with a policy          the policy's schemes (or the default) authenticate; the policy
 *                                   decides success, challenge (401) or forbid (403)
 *   no policy, or readCredentials   credentials are read: valid ones make the caller, a presented
 *                                   one that does not hold is a challenge, none is success
 *
 * The same outcomes the Fastify pipeline renders (http/pipeline.ts): hosts only render them.
 */
export function endpointAuthorizer(options: EndpointAuthorizationOptions, protection: EndpointProtection = {}): EndpointAuthorizer {
  return endpointAuthorization(options, protection).authorize ?? anonymousCaller;
}

/** An anonymous endpoint's authorizer: the caller is anonymous, nothing is read. */
export const anonymousCaller: EndpointAuthorizer = async () => ANONYMOUS;

/**
 * An endpoint's protection, decided once: the policy it runs (null for none), and its
 * authorizer, null for an anonymous endpoint, whose caller is anonymous without reading anything
 * (a host answers those without waiting for a promise).
 */
export interface ResolvedEndpointAuthorization {
  readonly policy: AuthorizationPolicy | null;
  readonly authorize: EndpointAuthorizer | null;
  /**
   * The fast path of a host: the authorization of a caller known at once, or undefined when
   * `authorize` must decide. Null where there is none (no verdicts, an anonymous endpoint, a
   * policy that is no rule on the principal alone).
   */
  readonly recognize: EndpointRecognizer | null;
}

/**
 * Authorizes, without waiting, a request whose credential its scheme accepted before (a
 * remembered verdict) when the endpoint's policy holds for that caller on the principal alone;
 * undefined for any other request, which the endpoint's authorizer then decides. It never
 * refuses: a challenge or a forbid, and the log of a refusal, stay the authorizer's.
 */
export type EndpointRecognizer = (request: AuthenticationRequest) => EndpointAuthorization | undefined;

/** `endpointAuthorizer`, with the policy it resolved: the Fastify host keeps it in the route's config. */
export function endpointAuthorization(options: EndpointAuthorizationOptions, protection: EndpointProtection = {}): ResolvedEndpointAuthorization {
  const { policies, evaluator } = options;
  const groups = protection.groups ?? [];
  const policy = resolveEndpointPolicy(policies, protection.authorization, groups);
  // A caller is recognized at once only with the verdicts in hand, and where the policy is a rule on the principal.
  const recognizing = (rule: PrincipalRule | undefined) => (options.verdicts === undefined || rule === undefined ? null : recognizer(evaluator, options.verdicts, policy, rule));
  if (policy !== null) {
    return { policy, authorize: (request) => authorizeFor(evaluator, policy, request), recognize: recognizing(evaluator.principalRule(policy)) };
  }
  // Without a fallback policy, an endpoint that says nothing is open, yet its caller is still known.
  const unprotected = !isAnonymousEndpoint(protection.authorization, groups);
  if (protection.readCredentials || unprotected) {
    return { policy, authorize: (request) => authorizeFor(evaluator, null, request), recognize: recognizing(ANY_CALLER) };
  }
  return { policy, authorize: null, recognize: null };
}

type PrincipalRule = (user: ClaimsPrincipal) => boolean;

/** Without a policy, any caller whose credential holds is authorized. */
const ANY_CALLER: PrincipalRule = () => true;

/**
 * The recognizer of one endpoint: the policy's one scheme (or the request's default) remembers
 * the credential, and the principal it vouched for meets the rule. The outcome is the one
 * `authorizeFor` gives the same request: one scheme tried, its success, the policy met.
 */
function recognizer(evaluator: PolicyEvaluator, verdicts: RememberedVerdicts, policy: AuthorizationPolicy | null, rule: PrincipalRule): EndpointRecognizer {
  return (request) => {
    const handler = evaluator.schemeFor(policy, request);
    const result = handler === undefined ? undefined : verdicts.recallFor(handler, request);
    if (result === undefined || !rule(result.principal)) return undefined;
    const authentication: PolicyAuthentication = { principal: result.principal, succeeded: true, attempts: [{ handler: handler!, result }] };
    return { principal: result.principal, outcome: PolicyAuthorizationResult.success(), authentication };
  };
}

async function authorizeFor(evaluator: PolicyEvaluator, policy: AuthorizationPolicy | null, request: AuthenticationRequest): Promise<EndpointAuthorization> {
  const authentication = await evaluator.authenticate(policy, request);
  const outcome = await evaluator.authorize(policy, authentication, request);
  return { principal: authentication.principal, outcome, authentication };
}
