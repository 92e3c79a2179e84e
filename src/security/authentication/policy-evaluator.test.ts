/**
 * The one authorization outcome: a route's policy and a check inside an endpoint (a resource
 * check, a GraphQL field) get their success, challenge or forbid from the same evaluator, and a
 * challenge carries the challenges of the schemes asked.
 */
import { describe, expect, it } from 'vitest';
import { AuthorizationPolicyBuilder } from '../authorization/authorization-policy-builder.ts';
import type { AuthorizationHandlerContext } from '../authorization/authorization-handler-context.ts';
import { AuthorizationService } from '../authorization/authorization-service.ts';
import { Claim } from '../claims/claim.ts';
import { ClaimsIdentity } from '../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationHandler } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import { AuthenticationSchemeProvider } from './authentication-scheme-provider.ts';
import { PolicyEvaluator } from './policy-evaluator.ts';

/** Reads `x-token`: `good` is user 1, anything else is refused. */
const token: AuthenticationHandler = {
  scheme: 'Token',
  authenticate(request) {
    const value = request.headers['x-token'];
    if (value === undefined) return AuthenticateResult.noResult();
    if (value !== 'good') return AuthenticateResult.fail('Token', 'Bad token');
    return AuthenticateResult.success('Token', new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '1')], 'Token')]));
  },
  challenge: (result) => (result.kind === 'fail' ? { wwwAuthenticate: 'Token error="invalid"', detail: result.message } : { wwwAuthenticate: 'Token' }),
};

/** Never vouches for anyone; asks in its own words, which name the host it was asked on. */
const partner: AuthenticationHandler = {
  scheme: 'Partner',
  authenticate: () => AuthenticateResult.noResult(),
  challenge: (_result, request) => ({ wwwAuthenticate: `Partner realm="${String(request.headers.host)}"` }),
};

/** The document's owner: a resource requirement, decided only about a resource. */
class Owner {
  readonly description = 'the owner';
}
const ownerHandler = {
  handle(context: AuthorizationHandlerContext) {
    for (const requirement of context.pendingRequirements) {
      if (requirement instanceof Owner && (context.resource as { ownerId?: string } | null)?.ownerId === context.user.subject) context.succeed(requirement);
    }
  },
};

const evaluator = new PolicyEvaluator(
  new AuthenticationSchemeProvider([token, partner], () => 'Token'),
  new AuthorizationService({ handlers: [ownerHandler] }),
);
const signedIn = new AuthorizationPolicyBuilder().requireAuthenticatedUser().build();
const ownerOnly = new AuthorizationPolicyBuilder().requireAuthenticatedUser().addRequirement(new Owner()).build();
const partnerOwner = new AuthorizationPolicyBuilder('Partner').addRequirement(new Owner()).build();
const mine = { ownerId: '1' };
const theirs = { ownerId: '2' };

const request = (headers: Record<string, string> = {}): AuthenticationRequest => ({ headers: { host: 'api.example', ...headers } });

/** What a route with `policy` answers a request. */
async function routeOutcome(policy: typeof signedIn, req: AuthenticationRequest, resource: unknown = null) {
  return evaluator.authorize(policy, await evaluator.authenticate(policy, req), req, resource);
}

/** What a check inside an endpoint answers, for the caller the route's own authentication found. */
async function resourceOutcome(policy: typeof signedIn | Owner[], req: AuthenticationRequest, resource: unknown) {
  const { principal } = await evaluator.authenticate(null, req);
  return evaluator.authorizeResource(principal, resource, policy, req);
}

describe('PolicyEvaluator.authorize, for a route', () => {
  it('challenges a caller without credentials with every scheme consulted', async () => {
    expect(await routeOutcome(signedIn, request())).toMatchObject({ kind: 'challenge', challenges: [{ wwwAuthenticate: 'Token' }] });
  });

  it('challenges a caller whose credential does not hold with the challenge of the scheme that refused it', async () => {
    const outcome = await routeOutcome(signedIn, request({ 'x-token': 'forged' }));
    expect(outcome).toMatchObject({ kind: 'challenge', challenges: [{ wwwAuthenticate: 'Token error="invalid"', detail: 'Bad token' }] });
    if (outcome.kind !== 'challenge') throw new Error('expected a challenge');
    expect(outcome.authentication.attempts.map(({ result }) => result.kind)).toEqual(['fail']);
  });

  it('asks the schemes with the request: a scheme’s challenge may depend on it', async () => {
    const outcome = await routeOutcome(partnerOwner, request());
    expect(outcome).toMatchObject({ kind: 'challenge', challenges: [{ wwwAuthenticate: 'Partner realm="api.example"' }] });
  });

  it('forbids an authenticated caller who fails, and lets one who meets the policy go on', async () => {
    expect(await routeOutcome(ownerOnly, request({ 'x-token': 'good' }), theirs)).toEqual({ kind: 'forbid', schemes: ['Token'] });
    expect(await routeOutcome(ownerOnly, request({ 'x-token': 'good' }), mine)).toEqual({ kind: 'success' });
  });
});

describe('PolicyEvaluator.authorize, without a policy (an open endpoint that reads credentials)', () => {
  it('lets an anonymous caller and an authenticated one go on', async () => {
    for (const req of [request(), request({ 'x-token': 'good' })]) {
      expect(await evaluator.authorize(null, await evaluator.authenticate(null, req), req)).toEqual({ kind: 'success' });
    }
  });

  it('challenges a presented credential that does not hold', async () => {
    const req = request({ 'x-token': 'forged' });
    expect(await evaluator.authorize(null, await evaluator.authenticate(null, req), req)).toMatchObject({
      kind: 'challenge',
      challenges: [{ wwwAuthenticate: 'Token error="invalid"' }],
    });
  });
});

describe('PolicyEvaluator.authorizeResource, for a check inside an endpoint', () => {
  it('answers an anonymous caller as a route protected by the same policy would: the same challenge', async () => {
    const route = await routeOutcome(ownerOnly, request(), mine);
    const check = await resourceOutcome(ownerOnly, request(), mine);
    expect(check).toMatchObject({ kind: 'challenge' });
    expect(check.kind === 'challenge' && check.challenges).toEqual(route.kind === 'challenge' && route.challenges);
  });

  it('challenges with the schemes the policy names, else with the default scheme for the request', async () => {
    expect(await resourceOutcome(partnerOwner, request(), mine)).toMatchObject({ challenges: [{ wwwAuthenticate: 'Partner realm="api.example"' }] });
    expect(await resourceOutcome([new Owner()], request(), mine)).toMatchObject({ challenges: [{ wwwAuthenticate: 'Token' }] });
  });

  it('forbids an authenticated caller, naming the schemes that authenticated them, as a route does', async () => {
    const route = await routeOutcome(ownerOnly, request({ 'x-token': 'good' }), theirs);
    const check = await resourceOutcome(ownerOnly, request({ 'x-token': 'good' }), theirs);
    expect(check).toEqual({ kind: 'forbid', schemes: ['Token'] });
    expect(check).toEqual(route);
  });

  it('decides when the handlers and the schemes do, refusals included', async () => {
    const caller = ClaimsPrincipal.anonymous();
    expect(await evaluator.authorizeResource(caller, mine, [new Owner()], request())).toMatchObject({ kind: 'challenge' });
    expect(await evaluator.authorizeResource(caller, null, new AuthorizationPolicyBuilder().requireAssertion(() => true).build(), request())).toEqual({ kind: 'success' });
  });
});
