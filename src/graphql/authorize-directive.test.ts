import { buildSchema, type GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AuthenticateResult, AuthenticationSchemeProvider, PolicyEvaluator } from '../security/authentication/index.ts';
import { AuthorizationPolicyBuilder, AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import { applyAuthorization, authorizeDirective } from './authorize-directive.ts';
import { Authorizer, contextFactory } from './context.ts';

describe('@authorize wrappers', () => {
  const schema = buildSchema(`${authorizeDirective} type Query { posts: [String!]! @authorize  slow: String @authorize(policy: "Later") }`);
  const fields = schema.getQueryType()!.getFields();
  fields.posts!.resolve = () => ['a', 'b'];
  fields.slow!.resolve = () => 'done';
  applyAuthorization(schema);
  const later = new AuthorizationPolicyBuilder().requireAssertion(async (context) => context.user.isAuthenticated).build();
  const authorization = new AuthorizationService();
  // A scheme that finds no credential and asks for its own, on the spot.
  const token = { scheme: 'Token', authenticate: () => AuthenticateResult.noResult(), challenge: () => ({ wwwAuthenticate: 'Token' }) };
  const evaluator = new PolicyEvaluator(new AuthenticationSchemeProvider([token], () => 'Token'), authorization);
  const authorizer = new Authorizer(authorization, new PolicyProvider({ policies: { Later: later } }), evaluator);
  const context = (caller: ClaimsPrincipal) => contextFactory(authorizer)(caller, { headers: {} });
  const signedIn = new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '1')], 'Bearer')]);
  const info = {} as GraphQLResolveInfo;

  it('resolve to the value when the policy decides on the spot, and reject when it refuses', async () => {
    expect(await fields.posts!.resolve!(undefined, {}, context(signedIn), info)).toEqual(['a', 'b']);
    await expect(fields.posts!.resolve!(undefined, {}, context(ClaimsPrincipal.anonymous()), info)).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('wait for a policy whose handler waits, and reject when it refuses', async () => {
    const pending = fields.slow!.resolve!(undefined, {}, context(signedIn), info);
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe('done');
    await expect(fields.slow!.resolve!(undefined, {}, context(ClaimsPrincipal.anonymous()), info)).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });
});
