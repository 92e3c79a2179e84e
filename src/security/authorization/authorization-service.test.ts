import { describe, expect, it } from 'vitest';
import { Claim } from '../claims/claim.ts';
import { ClaimsIdentity } from '../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../claims/claims-principal.ts';
import type { AuthorizationHandlerContext } from './authorization-handler-context.ts';
import { AuthorizationPolicy } from './authorization-policy.ts';
import { type AuthorizationHandler, type AuthorizationRequirement, RequirementHandler } from './authorization-requirement.ts';
import { AuthorizationService } from './authorization-service.ts';
import { instanceOf, type ResourceGuard, ResourceRequirementHandler } from './resource-requirement-handler.ts';
import { AssertionRequirement } from './requirements/assertion-requirement.ts';
import { ClaimsRequirement } from './requirements/claims-requirement.ts';
import { DenyAnonymousRequirement } from './requirements/deny-anonymous-requirement.ts';
import { NameRequirement } from './requirements/name-requirement.ts';
import { RolesRequirement } from './requirements/roles-requirement.ts';

const alice = new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '1'), new Claim('name', 'alice')], 'Bearer')]);

/** A requirement that its handlers decide; it handles nothing itself. */
class Gate implements AuthorizationRequirement {
  constructor(readonly description: string) {}
}

class OtherGate implements AuthorizationRequirement {
  readonly description = 'another gate';
}

type Verdict = 'succeed' | 'fail' | 'nothing';

/** A handler that gives one verdict on the requirements it is told about, and records its calls. */
function handler(verdict: Verdict, targets: readonly AuthorizationRequirement[], calls: string[] = [], name: string = verdict): AuthorizationHandler {
  return {
    handle(context) {
      calls.push(name);
      for (const target of targets) {
        if (!context.requirements.includes(target)) continue;
        if (verdict === 'succeed') context.succeed(target);
        if (verdict === 'fail') context.fail(`${name} said no`);
      }
    },
  };
}

describe('AuthorizationService.authorize', () => {
  it('succeeds when a handler meets the only requirement', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('succeed', [gate])] });
    const result = await service.authorize(alice, null, gate);
    expect(result).toEqual({ succeeded: true, failure: null });
  });

  it('needs every requirement to succeed (AND): one unmet requirement fails the policy', async () => {
    const first = new Gate('first');
    const second = new Gate('second');
    const service = new AuthorizationService({ handlers: [handler('succeed', [first])] });
    const result = await service.authorize(alice, null, [first, second]);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failedRequirements).toEqual([second]);
  });

  it('succeeds with two requirements when each is met by its own handler', async () => {
    const first = new Gate('first');
    const second = new Gate('second');
    const service = new AuthorizationService({ handlers: [handler('succeed', [second]), handler('succeed', [first])] });
    expect((await service.authorize(alice, null, [first, second])).succeeded).toBe(true);
  });

  it('meets a requirement when any one of its handlers succeeds (OR across handlers)', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('nothing', [gate]), handler('succeed', [gate])] });
    expect((await service.authorize(alice, null, gate)).succeeded).toBe(true);
  });

  it('meets a requirement when the succeeding handler comes first and the other does nothing', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('succeed', [gate]), handler('nothing', [gate])] });
    expect((await service.authorize(alice, null, gate)).succeeded).toBe(true);
  });

  it('lets an explicit fail veto a requirement another handler already succeeded', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('succeed', [gate]), handler('fail', [gate])] });
    const result = await service.authorize(alice, null, gate);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failCalled).toBe(true);
  });

  it('lets an explicit fail veto a requirement a later handler succeeds', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('fail', [gate]), handler('succeed', [gate])] });
    const result = await service.authorize(alice, null, gate);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failCalled).toBe(true);
    // The requirement was met, so only the veto explains the failure.
    expect(result.failure?.failedRequirements).toEqual([]);
  });

  it('leaves a requirement pending when its handler does nothing, and lists it as failed', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('nothing', [gate])] });
    const result = await service.authorize(alice, null, gate);
    expect(result.succeeded).toBe(false);
    expect(result.failure).toEqual({ failCalled: false, failedRequirements: [gate], failureReasons: [] });
  });

  it('fails a requirement that no handler is registered for', async () => {
    const gate = new Gate('gate');
    const result = await new AuthorizationService().authorize(alice, null, gate);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failedRequirements).toEqual([gate]);
  });

  it('reports the reasons handlers gave to fail', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('fail', [gate], [], 'owner-check')] });
    const result = await service.authorize(alice, null, gate);
    expect(result.failure?.failureReasons).toEqual(['owner-check said no']);
  });

  it('keeps running handlers after a fail by default', async () => {
    const gate = new Gate('gate');
    const calls: string[] = [];
    const service = new AuthorizationService({
      handlers: [handler('fail', [gate], calls, 'first'), handler('succeed', [gate], calls, 'second')],
    });
    await service.authorize(alice, null, gate);
    expect(calls).toEqual(['first', 'second']);
  });

  it('stops running handlers after a fail when invokeHandlersAfterFailure is false', async () => {
    const gate = new Gate('gate');
    const calls: string[] = [];
    const service = new AuthorizationService({
      invokeHandlersAfterFailure: false,
      handlers: [handler('nothing', [gate], calls, 'first'), handler('fail', [gate], calls, 'second'), handler('succeed', [gate], calls, 'third')],
    });
    const result = await service.authorize(alice, null, gate);
    expect(calls).toEqual(['first', 'second']);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failCalled).toBe(true);
  });

  it('runs every handler when invokeHandlersAfterFailure is false but nothing fails', async () => {
    const gate = new Gate('gate');
    const calls: string[] = [];
    const service = new AuthorizationService({
      invokeHandlersAfterFailure: false,
      handlers: [handler('nothing', [gate], calls, 'first'), handler('succeed', [gate], calls, 'second')],
    });
    expect((await service.authorize(alice, null, gate)).succeeded).toBe(true);
    expect(calls).toEqual(['first', 'second']);
  });

  it('awaits an asynchronous handler before judging', async () => {
    const gate = new Gate('gate');
    const slow: AuthorizationHandler = {
      async handle(context) {
        await new Promise((resolve) => setImmediate(resolve));
        context.succeed(gate);
      },
    };
    expect((await new AuthorizationService({ handlers: [slow] }).authorize(alice, null, gate)).succeeded).toBe(true);
  });

  it('awaits an asynchronous fail before judging', async () => {
    const gate = new Gate('gate');
    const slowNo: AuthorizationHandler = {
      async handle(context) {
        await new Promise((resolve) => setImmediate(resolve));
        context.fail('late no');
      },
    };
    const service = new AuthorizationService({ handlers: [handler('succeed', [gate]), slowNo] });
    const result = await service.authorize(alice, null, gate);
    expect(result.succeeded).toBe(false);
    expect(result.failure?.failureReasons).toEqual(['late no']);
  });

  it('runs asynchronous handlers one after another, in registration order', async () => {
    const gate = new Gate('gate');
    const order: string[] = [];
    const delayed = (name: string, ticks: number): AuthorizationHandler => ({
      async handle() {
        order.push(`${name} start`);
        for (let i = 0; i < ticks; i++) await new Promise((resolve) => setImmediate(resolve));
        order.push(`${name} end`);
      },
    });
    await new AuthorizationService({ handlers: [delayed('a', 3), delayed('b', 1)] }).authorize(alice, null, gate);
    expect(order).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('passes the user and the resource to the handlers', async () => {
    const gate = new Gate('gate');
    const resource = { ownerId: 1 };
    const seen: { user: ClaimsPrincipal; resource: unknown }[] = [];
    const spy: AuthorizationHandler = { handle: (context) => void seen.push({ user: context.user, resource: context.resource }) };
    await new AuthorizationService({ handlers: [spy] }).authorize(alice, resource, gate);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.user).toBe(alice);
    expect(seen[0]!.resource).toBe(resource);
  });

  it('runs the requirements that handle themselves', async () => {
    const service = new AuthorizationService();
    expect((await service.authorize(alice, null, new DenyAnonymousRequirement())).succeeded).toBe(true);
    expect((await service.authorize(ClaimsPrincipal.anonymous(), null, new DenyAnonymousRequirement())).succeeded).toBe(false);
  });

  it('accepts a policy', async () => {
    const gate = new Gate('gate');
    const policy = new AuthorizationPolicy([new DenyAnonymousRequirement(), gate]);
    const service = new AuthorizationService({ handlers: [handler('succeed', [gate])] });
    expect((await service.authorize(alice, null, policy)).succeeded).toBe(true);
    expect((await service.authorize(ClaimsPrincipal.anonymous(), null, policy)).succeeded).toBe(false);
  });

  it('accepts a single requirement', async () => {
    const gate = new Gate('gate');
    const service = new AuthorizationService({ handlers: [handler('nothing', [gate])] });
    const result = await service.authorize(alice, null, gate);
    expect(result.failure?.failedRequirements).toEqual([gate]);
  });

  it('accepts an array of requirements', async () => {
    const first = new Gate('first');
    const second = new Gate('second');
    const service = new AuthorizationService({ handlers: [handler('nothing', [first, second])] });
    const result = await service.authorize(alice, null, [first, second]);
    expect(result.failure?.failedRequirements).toEqual([first, second]);
  });

  it('refuses an empty array of requirements instead of allowing everything', async () => {
    await expect(new AuthorizationService().authorize(alice, null, [])).rejects.toThrow(/at least one requirement/);
  });
});

describe('RequirementHandler', () => {
  class GateHandler extends RequirementHandler<Gate> {
    readonly seen: { requirement: AuthorizationRequirement; resource: unknown }[] = [];

    constructor(private readonly verdict: (requirement: Gate) => boolean | Promise<boolean>) {
      super(Gate);
    }

    protected async handleRequirement(context: AuthorizationHandlerContext, requirement: Gate): Promise<void> {
      this.seen.push({ requirement, resource: context.resource });
      if (await this.verdict(requirement)) context.succeed(requirement);
    }
  }

  it('is called only for requirements of its type', async () => {
    const gate = new Gate('gate');
    const other = new OtherGate();
    const gateHandler = new GateHandler(() => true);
    const result = await new AuthorizationService({ handlers: [gateHandler] }).authorize(alice, { id: 1 }, [other, gate]);
    expect(gateHandler.seen.map((call) => call.requirement)).toEqual([gate]);
    expect(result.failure?.failedRequirements).toEqual([other]);
  });

  it('is called once for each requirement of its type', async () => {
    const first = new Gate('first');
    const second = new Gate('second');
    const gateHandler = new GateHandler((requirement) => requirement === second);
    const result = await new AuthorizationService({ handlers: [gateHandler] }).authorize(alice, { id: 1 }, [first, second]);
    expect(gateHandler.seen.map((call) => call.requirement)).toEqual([first, second]);
    expect(result.failure?.failedRequirements).toEqual([first]);
  });

  it('is called without a resource too: it declares no resource type', async () => {
    const gateHandler = new GateHandler(() => true);
    const result = await new AuthorizationService({ handlers: [gateHandler] }).authorize(alice, null, new Gate('gate'));
    expect(gateHandler.seen).toHaveLength(1);
    expect(result.succeeded).toBe(true);
  });

  it('is awaited when it decides asynchronously', async () => {
    const gateHandler = new GateHandler(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return true;
    });
    expect((await new AuthorizationService({ handlers: [gateHandler] }).authorize(alice, { id: 1 }, new Gate('gate'))).succeeded).toBe(true);
  });
});

describe('ResourceRequirementHandler', () => {
  class Box {
    constructor(readonly id: number) {}
  }
  class LabelledBox extends Box {}
  class Crate {
    constructor(readonly id: number) {}
  }

  /** Succeeds for every resource it is shown, the way an administrator branch would: the base must keep the wrong ones from it. */
  class AlwaysHandler<TResource> extends ResourceRequirementHandler<Gate, TResource> {
    readonly seen: unknown[] = [];

    constructor(guard: ResourceGuard<TResource>) {
      super(Gate, guard);
    }

    protected handleRequirement(context: AuthorizationHandlerContext, requirement: Gate, resource: TResource): void | Promise<void> {
      this.seen.push(resource);
      context.succeed(requirement);
    }
  }

  const decide = (handler: AuthorizationHandler, resource: unknown) =>
    new AuthorizationService({ handlers: [handler] }).authorize(alice, resource, new Gate('gate'));

  it.each([
    ['null', null],
    ['undefined', undefined],
  ])('is not called for a %s resource, so a handler that would succeed grants nothing', async (_, resource) => {
    const boxes = new AlwaysHandler(instanceOf(Box));
    const result = await decide(boxes, resource);
    expect(boxes.seen).toEqual([]);
    expect(result.succeeded).toBe(false);
  });

  it.each([
    ['an instance of another class', new Crate(1)],
    ['a plain object of the same shape', { id: 1 }],
    ['a string', 'box'],
    ['a number', 1],
  ])('is not called for %s when it handles a class', async (_, resource) => {
    const boxes = new AlwaysHandler(instanceOf(Box));
    const result = await decide(boxes, resource);
    expect(boxes.seen).toEqual([]);
    expect(result.succeeded).toBe(false);
  });

  it('is called for an instance of its class or a subclass, with that resource', async () => {
    const boxes = new AlwaysHandler(instanceOf(Box));
    const box = new Box(1);
    const labelled = new LabelledBox(2);
    expect((await decide(boxes, box)).succeeded).toBe(true);
    expect((await decide(boxes, labelled)).succeeded).toBe(true);
    expect(boxes.seen).toEqual([box, labelled]);
  });

  it('follows a type guard for plain records', async () => {
    const hasOwner = (resource: unknown): resource is { ownerId: number } =>
      typeof resource === 'object' && resource !== null && typeof (resource as { ownerId?: unknown }).ownerId === 'number';
    const owned = new AlwaysHandler(hasOwner);
    expect((await decide(owned, { ownerId: 3 })).succeeded).toBe(true);
    expect((await decide(owned, { authorId: 3 })).succeeded).toBe(false);
    expect(owned.seen).toEqual([{ ownerId: 3 }]);
  });

  it('is not called for a null resource even when its guard would accept null', async () => {
    const careless = new AlwaysHandler((resource: unknown): resource is unknown => true);
    const result = await decide(careless, null);
    expect(careless.seen).toEqual([]);
    expect(result.succeeded).toBe(false);
  });

  it('leaves the requirement to other handlers: one that needs no resource may still meet it', async () => {
    const boxes = new AlwaysHandler(instanceOf(Box));
    const gate = new Gate('gate');
    const result = await new AuthorizationService({ handlers: [boxes, handler('succeed', [gate])] }).authorize(alice, null, gate);
    expect(boxes.seen).toEqual([]);
    expect(result.succeeded).toBe(true);
  });

  it('is called only for requirements of its type', async () => {
    const boxes = new AlwaysHandler(instanceOf(Box));
    const other = new OtherGate();
    const result = await new AuthorizationService({ handlers: [boxes] }).authorize(alice, new Box(1), [other]);
    expect(boxes.seen).toEqual([]);
    expect(result.succeeded).toBe(false);
  });
});

describe('AuthorizationService.principalRule', () => {
  const anonymous = ClaimsPrincipal.anonymous();
  const admin = new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', '2'), new Claim('name', 'ada'), new Claim('role', 'Admin'), new Claim('dept', 'ops')], 'Bearer')]);
  const principals = [anonymous, alice, admin];
  const policies = {
    authenticated: new AuthorizationPolicy([new DenyAnonymousRequirement()]),
    admins: new AuthorizationPolicy([new DenyAnonymousRequirement(), new RolesRequirement(['Admin'])]),
    ops: new AuthorizationPolicy([new ClaimsRequirement('dept', ['ops'])]),
    alice: new AuthorizationPolicy([new NameRequirement('alice')]),
  };

  it('answers as authorize does, for every principal, on policies of built-in requirements', async () => {
    const service = new AuthorizationService();
    for (const policy of Object.values(policies)) {
      const rule = service.principalRule(policy);
      expect(rule).toBeDefined();
      for (const user of principals) expect(rule!(user)).toBe((await service.authorize(user, null, policy)).succeeded);
    }
  });

  it('is none for a policy with a requirement the principal alone does not decide (an assertion, a handled one)', () => {
    const service = new AuthorizationService({ handlers: [handler('succeed', [])] });
    expect(new AuthorizationService().principalRule(new AuthorizationPolicy([new DenyAnonymousRequirement(), new AssertionRequirement(() => true)]))).toBeUndefined();
    expect(new AuthorizationService().principalRule(new AuthorizationPolicy([new Gate('open')]))).toBeUndefined();
    // A handler that names no requirement type may decide any of them: nothing is a rule then.
    expect(service.principalRule(policies.authenticated)).toBeUndefined();
  });

  it('is none for a policy whose requirement a registered handler also decides, and a rule for the others', async () => {
    class NoAdminsOnSunday extends RequirementHandler<RolesRequirement> {
      constructor() {
        super(RolesRequirement);
      }
      protected handleRequirement(context: AuthorizationHandlerContext): void {
        context.fail('closed on Sunday');
      }
    }
    const service = new AuthorizationService({ handlers: [new NoAdminsOnSunday()] });
    expect(service.principalRule(policies.admins)).toBeUndefined();
    expect((await service.authorize(admin, null, policies.admins)).succeeded).toBe(false);
    expect(service.principalRule(policies.authenticated)?.(admin)).toBe(true);
  });
});
