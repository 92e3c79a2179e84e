/**
 * The request pipeline: what a request passes before its endpoint runs, in order. The list in
 * `requestPipeline` below is that order; the plugin registers it as it stands, and refuses a
 * list Fastify could not run in the order it says.
 *
 *   phase                   Fastify hook    refuses with                               code
 *   draining                onRequest       503 while the app closes                   plugins/draining.ts
 *   CORS                    onRequest       answers preflights (204)                   cors.ts
 *   authentication          onRequest       401 for invalid credentials                pipeline.ts
 *   authorization           onRequest       401 / 403 (302 to the login page)          pipeline.ts
 *   cross-site              onRequest       403 (callers of the auth cookie only)      cookie-session.ts
 *   rate limit per client   onRequest       429 (sign-in and account routes)           rate-limit.ts
 *     · body parsing: 400, 413, 415
 *   antiforgery             preValidation   400 (form posts)                           antiforgery.ts
 *     · schema validation: 400
 *   rate limit per account  preHandler      429 (sign-in and account routes)           rate-limit.ts
 *     · the endpoint
 *
 * So a request without the right credentials gets 401 or 403 before its body is read, and learns
 * nothing from body errors; a request arriving while the app closes gets 503 before anything.
 *
 * Two kinds of phases. An application phase is one hook of the application's, run on every
 * request; authentication's runs the check decided for the request's route when the route was
 * registered, read from the route's config. A route phase is a hook of the route's own, attached
 * when the route is registered to the routes that need it (the rate limits where the route's
 * options say `...rateLimited(…)`, antiforgery on unsafe methods). Fastify runs a route's own
 * hooks after the application's hooks of the same kind, so within one hook application phases
 * come first.
 *
 * The application's own hooks: registered before `register(gatehouse)`, they run before all of
 * this (a hook there may refuse a request before any credential is read, and finds
 * `request.user` still null); registered after it, they run after the application phases of
 * their hook: an `onRequest` hook finds `request.user` set, authenticated or anonymous. The
 * route phases of a hook run after the application's hooks of that hook, as a route's own hooks do.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { antiforgeryPhase, type AntiforgeryOptions } from './antiforgery.ts';
import type { AuthorizedCheck } from './cookie-session.ts';
import { corsPhase } from './cors.ts';
import { routeChecks, type RouteCheckOptions } from './pipeline.ts';
import { drainingPhase } from './plugins/draining.ts';
import { accountRateLimit, clientRateLimit } from './rate-limit.ts';

/** The Fastify hooks the phases run in, in the order Fastify runs them. */
const PHASE_HOOKS = ['onRequest', 'preValidation', 'preHandler'] as const;

export type PhaseHook = (typeof PHASE_HOOKS)[number];

/** One phase of the list: what it does, the hook it runs in, and its code. */
export interface PipelinePhase {
  readonly phase: string;
  readonly hook: PhaseHook;
  /** One implementation may carry consecutive phases of one hook (authentication, authorization, cross-site). */
  readonly by: ApplicationPhase | RoutePhase;
}

/** A phase run on every request, from one hook of the application's. */
export interface ApplicationPhase {
  readonly scope: 'application';
  /** When the pipeline is registered, before any phase adds a hook or a route. */
  readonly prepare?: (app: FastifyInstance) => void;
  /** Each route as it is registered, with the plugin context it is registered in: decides what the hook will read for it. */
  readonly forRoute?: (route: RouteOptions, instance: FastifyInstance) => void;
  /** In the list's order: adds the phase's hook. */
  readonly register: (app: FastifyInstance) => Promise<void> | void;
}

/** A phase run by the routes that need it, as a hook of the route's own. */
export interface RoutePhase {
  readonly scope: 'route';
  /** The route's hook for this phase, decided when the route is registered; none when it needs none. */
  readonly forRoute: (route: RouteOptions) => RouteHook | undefined;
  /** In the list's order: what the hook needs on the application (a decoration). */
  readonly register?: (app: FastifyInstance) => Promise<void> | void;
}

/** A hook of a route's own, of the kind its phase names. */
export type RouteHook = Exclude<NonNullable<RouteOptions[PhaseHook]>, readonly unknown[]>;

export interface PipelineParts {
  /** Policies, evaluator and result handler of authentication and authorization. */
  readonly authorization: Omit<RouteCheckOptions, 'authorized'>;
  /** The cross-site check (and sliding renewal) of requests the auth cookie authenticated. */
  readonly crossSite: AuthorizedCheck;
  /** `CORS_ORIGINS`: browsers on these origins may call with credentials. */
  readonly corsOrigins: readonly string[];
  readonly antiforgery: AntiforgeryOptions;
}

/** The pipeline of a Gatehouse application: the order of this list is the order requests meet. */
export function requestPipeline(parts: PipelineParts): readonly PipelinePhase[] {
  const checks = routeChecks({ ...parts.authorization, authorized: parts.crossSite });
  return [
    { phase: 'draining', hook: 'onRequest', by: drainingPhase },
    { phase: 'CORS', hook: 'onRequest', by: corsPhase(parts.corsOrigins) },
    { phase: 'authentication', hook: 'onRequest', by: checks },
    { phase: 'authorization', hook: 'onRequest', by: checks },
    { phase: 'cross-site', hook: 'onRequest', by: checks },
    { phase: 'rate limit per client', hook: 'onRequest', by: clientRateLimit },
    { phase: 'antiforgery', hook: 'preValidation', by: antiforgeryPhase(parts.antiforgery) },
    { phase: 'rate limit per account', hook: 'preHandler', by: accountRateLimit },
  ];
}

export interface RequestPipelineOptions {
  readonly phases: readonly PipelinePhase[];
}

async function registerPipeline(app: FastifyInstance, { phases }: RequestPipelineOptions): Promise<void> {
  checkOrder(phases);
  const implementations = [...new Set(phases.map((entry) => entry.by))];
  for (const implementation of implementations) if (implementation.scope === 'application') implementation.prepare?.(app);
  // Before any phase registers a route of its own (CORS's preflight route): every route is decided here.
  app.addHook('onRoute', function decidePhases(this: FastifyInstance, route: RouteOptions) {
    for (const implementation of implementations) if (implementation.scope === 'application') implementation.forRoute?.(route, this);
    for (const hook of PHASE_HOOKS) attachRouteHooks(route, hook, phases);
  });
  for (const implementation of implementations) await implementation.register?.(app);
}

/** The route phases of `hook` that the route needs, in the list's order, ahead of the route's own hooks. */
function attachRouteHooks(route: RouteOptions, hook: PhaseHook, phases: readonly PipelinePhase[]): void {
  const attached: RouteHook[] = [];
  for (const { hook: phaseHook, by } of phases) {
    if (phaseHook !== hook || by.scope !== 'route') continue;
    const routeHook = by.forRoute(route);
    if (routeHook !== undefined) attached.push(routeHook);
  }
  if (attached.length === 0) return;
  const own = route[hook] === undefined ? [] : [route[hook]].flat();
  (route as Record<PhaseHook, unknown>)[hook] = [...attached, ...own];
}

/**
 * Refuses a list Fastify would run in another order than it says: hooks out of Fastify's order,
 * an application phase after a route phase of the same hook (a route's own hooks come after the
 * application's), or the phases of one implementation apart or in different hooks.
 */
function checkOrder(phases: readonly PipelinePhase[]): void {
  phases.forEach((entry, index) => {
    const previous = phases[index - 1];
    if (previous === undefined) return;
    const where = `The request pipeline lists "${entry.phase}" (${entry.hook}) after "${previous.phase}" (${previous.hook})`;
    if (PHASE_HOOKS.indexOf(entry.hook) < PHASE_HOOKS.indexOf(previous.hook)) throw new Error(`${where}, which Fastify runs later.`);
    if (entry.hook === previous.hook && entry.by.scope === 'application' && previous.by.scope === 'route') {
      throw new Error(`${where}: a route's own hooks run after the application's.`);
    }
    if (entry.by !== previous.by && phases.slice(0, index - 1).some((earlier) => earlier.by === entry.by)) {
      throw new Error(`${where}, apart from the phases its code also runs.`);
    }
    if (entry.by === previous.by && entry.hook !== previous.hook) throw new Error(`${where}: one code runs in one hook.`);
  });
}

/** Registers the phases in the order of their list; at the root of the application, like Gatehouse. */
export const requestPipelinePlugin = fp(registerPipeline, { name: 'gatehouse-pipeline', fastify: '5.x' });
