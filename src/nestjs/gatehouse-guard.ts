/**
 * The global guard (ASP.NET's authorization middleware, after routing): each request is decided at
 * its handler, with the handler's own `@Authorize`/`@AllowAnonymous` and its controller's as a
 * group around it, else the fallback policy, combined as on every host
 * (endpoints/authorize-endpoint.ts). A refusal is thrown as a `GatehouseRefusal`, which the
 * exception filter answers (401 with `WWW-Authenticate`, 403, or the login redirect of a browser).
 * A GraphQL resolver under `@Authorize` is checked by its operation's context instead.
 */
import type { IncomingMessage } from 'node:http';
import type { CanActivate, ExecutionContext } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { serialize as serializeCookie } from 'cookie';
import { endpointAuthorization, type ResolvedEndpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import { cookieSessionCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { problemResponse } from '../endpoints/problem-response.ts';
import { refusalResponse } from '../endpoints/refusal-response.ts';
import { type ResourceCheck, resourceChecks } from '../endpoints/resource-checks.ts';
import { secureAnswer } from '../endpoints/response-headers.ts';
import type { GatehouseInstance } from '../hosting/gatehouse-instance.ts';
import type { GraphQLContext } from '../graphql/context.ts';
import { guardedHeaders } from '../security/authentication/index.ts';
import { type AuthorizationPolicy, resolveEndpointPolicy } from '../security/authorization/index.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import { authorizationOf } from './decorators.ts';
import { rememberRoute } from './nest-metrics.ts';
import { nodeRequestOf, type PlatformRequest, receivedOf } from './nest-requests.ts';
import { BODY_LIMIT } from './request-validation.ts';

/** A refusal decided by the guard, with its answer: the exception filter writes it. */
export class GatehouseRefusal extends Error {
  constructor(readonly answer: EndpointResponse) {
    super(`Refused with ${answer.status}.`);
    this.name = 'GatehouseRefusal';
  }
}

/** What the guard leaves on the request for the handler (`@CurrentUser()`) and resource checks. */
interface DecidedRequest extends PlatformRequest {
  user?: ClaimsPrincipal;
  authorize?: ResourceCheck;
}

const ANONYMOUS = ClaimsPrincipal.anonymous();

export class GatehouseGuard implements CanActivate {
  /** Each handler's decision, resolved at its first request. */
  private readonly decisions = new WeakMap<object, ResolvedEndpointAuthorization>();
  /** Each resolver's policy (null for none), resolved at its first call. */
  private readonly resolverPolicies = new WeakMap<object, AuthorizationPolicy | null>();
  private readonly checks;
  private readonly cookieSession;
  private readonly headerOptions: { readonly production: boolean; readonly credentialHeaders: readonly string[] };

  constructor(
    private readonly instance: GatehouseInstance,
    private readonly adapterHost: HttpAdapterHost,
    private readonly address: (request: IncomingMessage) => string,
  ) {
    const { config, authorization } = instance;
    this.checks = resourceChecks(authorization);
    this.cookieSession = cookieSessionCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock: instance.gatehouse.clock });
    this.headerOptions = { production: instance.config.production, credentialHeaders: guardedHeaders(instance.schemes.handlers) };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType<string>() === 'graphql') return this.authorizeResolver(context);
    // Other contexts (microservices, sockets) decide their own callers.
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<DecidedRequest>();
    const response = context.switchToHttp().getResponse<unknown>();
    if (this.instance.metrics !== undefined) rememberRoute(request);
    this.secure(request, response);
    (request as { [BODY_LIMIT]?: number })[BODY_LIMIT] = this.instance.config.bodyLimitBytes;
    const resolved = this.resolvedFor(context.getHandler(), context.getClass());
    if (resolved.authorize === null) {
      request.user = ANONYMOUS;
      return true;
    }
    const received = receivedOf(request, this.address);
    const decided = resolved.recognize?.(received) ?? (await resolved.authorize(received));
    request.user = decided.principal;
    request.authorize = this.checks.checkFor(decided.principal, received);
    if (decided.outcome.kind !== 'success') throw new GatehouseRefusal(refusalResponse(decided.outcome, received, (returnUrl) => this.instance.paths.loginFor(returnUrl)));
    const verdict = decided.authentication === undefined ? undefined : this.cookieSession(received, decided.authentication);
    if (verdict?.kind === 'refused') throw new GatehouseRefusal(problemResponse(verdict.problem));
    if (verdict?.renewed !== undefined) {
      const { name, value, attributes } = verdict.renewed;
      this.adapterHost.httpAdapter.appendHeader(response, 'set-cookie', serializeCookie(name, value, attributes));
    }
    return true;
  }

  /**
   * A GraphQL resolver under `@Authorize` (on it or its resolver class), checked by the operation's
   * context, with the parent object as the resource; its refusal is the field's `UNAUTHENTICATED`
   * or `FORBIDDEN` error. No fallback policy here: the GraphQL path is open, and a field without a
   * rule is for anyone, as with Gatehouse's own endpoint.
   */
  private async authorizeResolver(context: ExecutionContext): Promise<boolean> {
    const policy = this.resolverPolicyFor(context.getHandler(), context.getClass());
    if (policy === null) return true;
    const [parent, , operation] = context.getArgs<[unknown, unknown, Partial<GraphQLContext> | undefined]>();
    if (typeof operation?.authorize !== 'function') throw new Error('@Authorize on a resolver needs the context GatehouseGraphQL gives the driver.');
    await operation.authorize(parent ?? null, policy);
    return true;
  }

  private resolverPolicyFor(handler: object, resolver: object): AuthorizationPolicy | null {
    let policy = this.resolverPolicies.get(handler);
    if (policy === undefined) {
      const [own, group] = [authorizationOf(handler), authorizationOf(resolver)];
      policy = own === undefined && group === undefined ? null : resolveEndpointPolicy(this.instance.authorization.policies, own, group === undefined ? [] : [group]);
      this.resolverPolicies.set(handler, policy);
    }
    return policy;
  }

  private resolvedFor(handler: object, controller: object): ResolvedEndpointAuthorization {
    let resolved = this.decisions.get(handler);
    if (resolved === undefined) {
      const group = authorizationOf(controller);
      resolved = endpointAuthorization(this.instance.authorization, { authorization: authorizationOf(handler), groups: group === undefined ? [] : [group] });
      this.decisions.set(handler, resolved);
    }
    return resolved;
  }

  /** Every answer after the guard, the handler's included (docs/reference/http.md). */
  private secure(request: PlatformRequest, response: unknown): void {
    const { httpAdapter } = this.adapterHost;
    secureAnswer((name, value) => httpAdapter.setHeader(response, name, value), nodeRequestOf(request).headers, this.headerOptions);
  }
}
