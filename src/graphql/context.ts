import type { PolicyName } from '../security/authorization/policy-names.ts';
import {
  AuthorizationPolicy,
  type AuthorizationRequirement,
  type AuthorizationService,
  type PolicyProvider,
  resolveEndpointPolicy,
} from '../security/authorization/index.ts';
import type { AuthenticationRequest, PolicyEvaluator } from '../security/authentication/index.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { GraphQLSchema } from 'graphql';
import { applyAuthorization, type AuthorizeRule, type RuleChecker } from './authorize-directive.ts';
import { refusalError } from './errors.ts';

/** A policy by name, a policy, or requirements: what `authorize` checks. */
export type PolicyReference<Policy extends string = PolicyName> =
  | Policy
  | AuthorizationPolicy
  | AuthorizationRequirement
  | readonly AuthorizationRequirement[];

/**
 * What every resolver of one operation sees, besides what the application's context builder
 * adds: the caller, and the resource checks of the same authorization service as HTTP.
 */
export interface GraphQLContext<Policy extends string = PolicyName> {
  /**
   * The caller. Reading it makes the result this caller's own: it is then neither kept in the
   * result cache nor shared between subscribers.
   */
  readonly user: ClaimsPrincipal;
  /** Throws `UNAUTHENTICATED` (anonymous caller) or `FORBIDDEN` unless the caller meets the policy about `resource`. */
  authorize(resource: unknown, policy: PolicyReference<Policy>): Promise<void>;
  /** Whether the caller meets the policy about `resource`. */
  isAuthorized(resource: unknown, policy: PolicyReference<Policy>): Promise<boolean>;
}

/** What the service reads back from a context after running an operation with it. */
export interface OperationContext {
  readonly viewerRead: boolean;
}

/**
 * One Gatehouse instance's policies, authorization service and evaluator, as contexts check them:
 * the evaluator decides a refusal's outcome as it does for HTTP, and the context only renders it.
 */
export class Authorizer<Policy extends string = PolicyName> {
  /** Each rule's policy, built once: a directive's roles make a policy of their own. */
  private readonly rulePolicies = new WeakMap<AuthorizeRule, AuthorizationPolicy>();

  constructor(
    readonly authorization: AuthorizationService,
    private readonly policies: PolicyProvider<Policy>,
    readonly evaluator: PolicyEvaluator,
  ) {}

  /** The policy a rule stands for (ASP.NET's `[Authorize(Policy, Roles)]`); throws for an unknown policy name. */
  policyOfRule(rule: AuthorizeRule): AuthorizationPolicy {
    let policy = this.rulePolicies.get(rule);
    if (policy === undefined) {
      if (rule.policy !== undefined && !this.policies.has(rule.policy)) throw new Error(`@authorize names an unknown policy "${rule.policy}".`);
      const data = { ...(rule.policy !== undefined ? { policy: rule.policy as Policy } : {}), ...(rule.roles ? { roles: rule.roles } : {}) };
      policy = resolveEndpointPolicy(this.policies, { authorize: [data] }) ?? this.policies.defaultPolicy;
      this.rulePolicies.set(rule, policy);
    }
    return policy;
  }

  /**
   * Puts `schema`'s `@authorize` rules in force (see `applyAuthorization`), each rule's policy
   * found now: a misspelt name fails the start (`who` says whose), not a request.
   */
  applyTo(schema: GraphQLSchema, who: string): void {
    for (const { rule, where } of applyAuthorization(schema)) {
      try {
        this.policyOfRule(rule);
      } catch (error) {
        throw new Error(`${who}: ${where}: ${(error as Error).message}`);
      }
    }
  }

  policyOf(reference: PolicyReference<Policy>): AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[] {
    return typeof reference === 'string' ? this.policies.get(reference as Policy) : reference;
  }
}

/**
 * A context per operation (per event, for a subscription). `caller` is the caller, or how to
 * read the caller's current principal: a socket's caller may change under a long-lived
 * subscription (a cookie socket takes its user's new claims), and each event is resolved for the
 * caller as they are then. `credentials` is the request the caller was authenticated from (a
 * socket's upgrade), which the schemes asked read again to challenge an anonymous caller. The
 * state is in private fields, so that what the application's builder adds cannot collide with it.
 */
export class CallerContext<Policy extends string = PolicyName> implements GraphQLContext<Policy>, OperationContext, RuleChecker {
  #read = false;
  readonly #caller: ClaimsPrincipal | (() => ClaimsPrincipal);
  readonly #credentials: AuthenticationRequest;
  readonly #authorizer: Authorizer<Policy>;

  constructor(caller: ClaimsPrincipal | (() => ClaimsPrincipal), credentials: AuthenticationRequest, authorizer: Authorizer<Policy>) {
    this.#caller = caller;
    this.#credentials = credentials;
    this.#authorizer = authorizer;
  }

  get user(): ClaimsPrincipal {
    this.#read = true;
    return typeof this.#caller === 'function' ? this.#caller() : this.#caller;
  }

  get viewerRead(): boolean {
    return this.#read;
  }

  async authorize(resource: unknown, policy: PolicyReference<Policy>): Promise<void> {
    await this.#check(resource, this.#authorizer.policyOf(policy));
  }

  async isAuthorized(resource: unknown, policy: PolicyReference<Policy>): Promise<boolean> {
    return (await this.#authorizer.authorization.authorize(this.user, resource, this.#authorizer.policyOf(policy))).succeeded;
  }

  checkRule(resource: unknown, rule: AuthorizeRule): Promise<void> {
    return this.#check(resource, this.#authorizer.policyOfRule(rule));
  }

  /** Rejects with the refusal when the caller does not meet `policy`. */
  async #check(resource: unknown, policy: AuthorizationPolicy | AuthorizationRequirement | readonly AuthorizationRequirement[]): Promise<void> {
    // Read once: a socket's principal may change while the check waits.
    const outcome = await this.#authorizer.evaluator.authorizeResource(this.user, resource, policy, this.#credentials);
    if (outcome.kind !== 'success') throw refusalError(outcome);
  }
}

/** Adds to the operation's context what the application's builder makes for it. */
export type ContextBuilder<Policy extends string, Extra extends object> = (context: GraphQLContext<Policy>) => Extra;

/**
 * Makes an operation's context: Gatehouse's, with the own properties of what `build` returns
 * added as they are (a getter stays a getter: a loader can be made when first read). The builder
 * may not replace `user`, `authorize` or `isAuthorized`.
 */
export function contextFactory<Policy extends string, Extra extends object>(
  authorizer: Authorizer<Policy>,
  build?: ContextBuilder<Policy, Extra>,
): (caller: ClaimsPrincipal | (() => ClaimsPrincipal), credentials: AuthenticationRequest) => CallerContext<Policy> & Extra {
  return (caller, credentials) => {
    const context = new CallerContext(caller, credentials, authorizer);
    if (build !== undefined) addOwnProperties(context, build(context));
    return context as CallerContext<Policy> & Extra;
  };
}

/**
 * The same context as a plain object of closures, for servers that copy a context before using it
 * (Apollo Server clones it per operation, which a class's private fields do not survive).
 */
export function portableContext<Context extends CallerContext<any>>(context: Context): Context {
  const portable = {
    authorize: context.authorize.bind(context),
    isAuthorized: context.isAuthorized.bind(context),
    checkRule: context.checkRule.bind(context),
  };
  Object.defineProperty(portable, 'user', { enumerable: true, get: () => context.user });
  for (const key of Reflect.ownKeys(context)) Object.defineProperty(portable, key, Object.getOwnPropertyDescriptor(context, key)!);
  return portable as unknown as Context;
}

function addOwnProperties(context: object, extra: unknown): void {
  if (typeof extra !== 'object' || extra === null) throw new TypeError('The GraphQL context builder must return an object.');
  for (const key of Reflect.ownKeys(extra)) {
    if (key in context) throw new Error(`The GraphQL context builder may not replace "${String(key)}".`);
    Object.defineProperty(context, key, Object.getOwnPropertyDescriptor(extra, key)!);
  }
}
