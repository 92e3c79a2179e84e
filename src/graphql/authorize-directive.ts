import {
  type ConstDirectiveNode,
  defaultFieldResolver,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLNamedType,
  type GraphQLSchema,
  isObjectType,
  valueFromASTUntyped,
} from 'graphql';

/**
 * The directive's declaration, for an application's type definitions: a field or an object type
 * under it is resolved only for callers that meet the policy (and have one of the roles, when
 * both are given), decided by the same authorization service and policies as HTTP.
 */
export const authorizeDirective = `"""Who may read a field or a type: a named policy, any of the roles, or both; neither: any signed-in caller."""
directive @authorize(policy: String, roles: [String!]) on FIELD_DEFINITION | OBJECT
`;

/**
 * What `@authorize` says, in SDL or, on a graphql-js field or object type, as its extension
 * `authorize` (`new GraphQLObjectType({ …, extensions: { authorize: { roles: ['Admin'] } } })`).
 */
export interface AuthorizeRule<Policy extends string = string> {
  readonly policy?: Policy;
  readonly roles?: readonly string[];
}

/**
 * Checks a rule for the caller of the context, about `resource`; throws (or rejects with) the
 * GraphQL error when refused. Settled at once when the policy's handlers decide on the spot.
 */
export interface RuleChecker {
  checkRule(resource: unknown, rule: AuthorizeRule): Promise<void>;
}

type Resolver = GraphQLFieldResolver<unknown, RuleChecker, unknown>;

/** Marks a resolver wrapped by `applyAuthorization`, with the rule it checks. */
const GUARD = Symbol('gatehouse.authorize');

interface Annotated {
  readonly astNode?: { readonly directives?: readonly ConstDirectiveNode[] } | null | undefined;
  readonly extensions?: { readonly [name: string]: unknown } | null | undefined;
}

/** The rule on a field or type: its `@authorize` directive, else its `authorize` extension; null when neither. */
export function authorizeRuleOf(element: Annotated): AuthorizeRule | null {
  const directive = element.astNode?.directives?.find((d) => d.name.value === 'authorize');
  if (directive !== undefined) {
    const values: Record<string, unknown> = {};
    for (const argument of directive.arguments ?? []) values[argument.name.value] = valueFromASTUntyped(argument.value);
    return ruleFrom(values);
  }
  const extension = element.extensions?.authorize;
  return extension === undefined || extension === null ? null : ruleFrom(extension);
}

/** Whether a field's value is under a rule: its own, or its type's. */
export function isGuarded(parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>): boolean {
  return authorizeRuleOf(field) !== null || authorizeRuleOf(parent) !== null;
}

/**
 * Wraps the resolver of every field under a rule (the field's own wins over its type's) in a
 * check by the operation's context, with the field's parent object as the resource; a root
 * `Subscription` field is checked when subscribed to (no resource) and again for each event (the
 * event as the resource), so a socket's changed claims reach an active subscription. The wrappers
 * hold the rule only, never an authorization service: a schema wrapped once serves any number of
 * Gatehouse instances, each checking with its own policies through its own contexts. Returns the
 * rules found, so that their policy names can be checked before the first request.
 */
export function applyAuthorization(schema: GraphQLSchema): { rule: AuthorizeRule; where: string }[] {
  const rules: { rule: AuthorizeRule; where: string }[] = [];
  const subscriptionType = schema.getSubscriptionType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const typeRule = authorizeRuleOf(type);
    for (const field of Object.values(type.getFields())) {
      const rule = authorizeRuleOf(field) ?? typeRule;
      if (rule === null) continue;
      rules.push({ rule, where: `${type.name}.${field.name}` });
      field.resolve = guarded(rule, field.resolve ?? defaultFieldResolver);
      if (type === subscriptionType && field.subscribe) field.subscribe = guarded(rule, field.subscribe, () => null);
    }
  }
  return rules;
}

function guarded(rule: AuthorizeRule, resolve: GraphQLFieldResolver<unknown, unknown, unknown>, resourceOf = (parent: unknown) => parent ?? null): Resolver {
  if (GUARD in resolve) return resolve as Resolver;
  // Not async: a context of another kind throws as the resolver is called, as before any check.
  const wrapper: Resolver = (parent, args, context, info) => {
    if (typeof context?.checkRule !== 'function') throw new Error('A field under @authorize runs only with a context Gatehouse made (gatehouseGraphQL, graphqlAuthorization).');
    return context.checkRule(resourceOf(parent), rule).then(() => resolve(parent, args, context, info));
  };
  return Object.assign(wrapper, { [GUARD]: rule });
}

function ruleFrom(values: unknown): AuthorizeRule {
  if (typeof values !== 'object' || values === null) throw new Error('An authorize rule is an object: { policy?, roles? }.');
  const { policy, roles } = values as Record<string, unknown>;
  if (policy !== undefined && policy !== null && typeof policy !== 'string') throw new Error('An authorize rule names its policy as a string.');
  if (roles !== undefined && roles !== null && !(Array.isArray(roles) && roles.every((role) => typeof role === 'string'))) {
    throw new Error('An authorize rule lists its roles as strings.');
  }
  return Object.freeze({
    ...(typeof policy === 'string' ? { policy } : {}),
    ...(Array.isArray(roles) && roles.length > 0 ? { roles: Object.freeze([...(roles as string[])]) } : {}),
  });
}
