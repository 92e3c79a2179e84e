import { describe, expect, it } from 'vitest';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import type { AuthorizationRequirement } from './authorization-requirement.ts';

function requirements(): [AuthorizationRequirement, AuthorizationRequirement] {
  return [{ description: 'first' }, { description: 'second' }];
}

describe('AuthorizationHandlerContext', () => {
  it('starts with every requirement pending, neither succeeded nor failed', () => {
    const [first, second] = requirements();
    const context = new AuthorizationHandlerContext([first, second], ClaimsPrincipal.anonymous(), null);
    expect(context.pendingRequirements).toEqual([first, second]);
    expect(context.hasSucceeded).toBe(false);
    expect(context.hasFailed).toBe(false);
  });

  it('carries the user and the resource it was created with', () => {
    const user = ClaimsPrincipal.anonymous();
    const resource = { ownerId: 3 };
    const context = new AuthorizationHandlerContext(requirements(), user, resource);
    expect(context.user).toBe(user);
    expect(context.resource).toBe(resource);
  });

  it('removes a requirement from the pending ones when it succeeds', () => {
    const [first, second] = requirements();
    const context = new AuthorizationHandlerContext([first, second], ClaimsPrincipal.anonymous(), null);
    context.succeed(first);
    expect(context.pendingRequirements).toEqual([second]);
  });

  it('has not succeeded while one requirement is still pending (AND)', () => {
    const [first, second] = requirements();
    const context = new AuthorizationHandlerContext([first, second], ClaimsPrincipal.anonymous(), null);
    context.succeed(first);
    expect(context.hasSucceeded).toBe(false);
  });

  it('has succeeded once every requirement succeeded', () => {
    const [first, second] = requirements();
    const context = new AuthorizationHandlerContext([first, second], ClaimsPrincipal.anonymous(), null);
    context.succeed(second);
    context.succeed(first);
    expect(context.hasSucceeded).toBe(true);
    expect(context.pendingRequirements).toEqual([]);
  });

  it('counts a requirement met by two handlers once', () => {
    const [first] = requirements();
    const context = new AuthorizationHandlerContext([first], ClaimsPrincipal.anonymous(), null);
    context.succeed(first);
    context.succeed(first);
    expect(context.hasSucceeded).toBe(true);
  });

  it('has not succeeded after a fail, even with every requirement met', () => {
    const [first] = requirements();
    const context = new AuthorizationHandlerContext([first], ClaimsPrincipal.anonymous(), null);
    context.succeed(first);
    context.fail();
    expect(context.hasFailed).toBe(true);
    expect(context.hasSucceeded).toBe(false);
  });

  it('has not succeeded when the fail came before the succeed', () => {
    const [first] = requirements();
    const context = new AuthorizationHandlerContext([first], ClaimsPrincipal.anonymous(), null);
    context.fail();
    context.succeed(first);
    expect(context.hasSucceeded).toBe(false);
  });

  it('records the reasons given to fail, and nothing for a fail without a reason', () => {
    const context = new AuthorizationHandlerContext(requirements(), ClaimsPrincipal.anonymous(), null);
    context.fail('not the owner');
    context.fail();
    context.fail('locked');
    expect(context.failureReasons).toEqual(['not the owner', 'locked']);
  });

  it('does not treat succeeding a requirement of another policy as meeting its own', () => {
    const [first] = requirements();
    const stranger: AuthorizationRequirement = { description: 'stranger' };
    const context = new AuthorizationHandlerContext([first], ClaimsPrincipal.anonymous(), null);
    context.succeed(stranger);
    expect(context.pendingRequirements).toEqual([first]);
    expect(context.hasSucceeded).toBe(false);
  });

  it('returns a copy of the pending requirements that callers cannot use to change it', () => {
    const [first] = requirements();
    const context = new AuthorizationHandlerContext([first], ClaimsPrincipal.anonymous(), null);
    context.pendingRequirements.length = 0;
    expect(context.pendingRequirements).toEqual([first]);
  });
});
