/**
 * Antiforgery for form posts on Fastify (the check itself: endpoints/antiforgery.ts). Which routes
 * read forms at all is decided by where `formBodiesPlugin` is registered; other routes answer a
 * form with 415 before this check. The check is the request pipeline's "antiforgery" phase
 * (request-pipeline.ts): attached only to routes with unsafe methods, after body parsing and
 * before schema validation (`preValidation`), so GET routes and JSON clients pay nothing.
 */
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { type AntiforgeryOptions, AntiforgeryTokens, isUnsafeMethod } from '../endpoints/antiforgery.ts';
import { replyCookies } from './reply-cookies.ts';
import type { RoutePhase } from './request-pipeline.ts';

export { antiforgeryCookieName, type AntiforgeryOptions } from '../endpoints/antiforgery.ts';

/** The request token for a page's forms; sets the antiforgery cookie when the browser has none. */
export type AntiforgeryToken = (request: FastifyRequest, reply: FastifyReply) => string;

declare module 'fastify' {
  interface FastifyInstance {
    /** The request token for a page's forms; sets the antiforgery cookie when the browser has none. */
    antiforgeryToken: AntiforgeryToken;
    /** The antiforgery tokens the phase checks with, for endpoints mounted on this application. */
    antiforgery: AntiforgeryTokens;
  }
}

/** The pipeline's antiforgery phase, and `app.antiforgeryToken` for the pages' forms. */
export function antiforgeryPhase(options: AntiforgeryOptions): RoutePhase {
  const tokens = new AntiforgeryTokens(options);

  const antiforgeryToken: AntiforgeryToken = (request, reply) => tokens.requestToken(request, request.user?.subject ?? null, replyCookies(reply));

  const check: preValidationHookHandler = (request, _reply, done) => {
    const refusal = tokens.check(request, request.body, request.user?.subject ?? null);
    done(refusal ?? undefined);
  };

  return {
    scope: 'route',
    register: (app) => {
      app.decorate('antiforgeryToken', antiforgeryToken);
      app.decorate('antiforgery', tokens);
    },
    forRoute: (route) => ([route.method].flat().some(isUnsafeMethod) ? check : undefined),
  };
}
