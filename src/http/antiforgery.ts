/**
 * Antiforgery for form posts (docs/reference/http.md): every form-encoded or multipart request with an
 * unsafe method must carry `__RequestVerificationToken`, derived from the antiforgery cookie for
 * the caller; missing or wrong is a 400 naming the field, and the endpoint never runs. JSON bodies
 * are exempt: a browser cannot send them cross-site without a CORS preflight.
 *
 * Which routes read forms at all is decided by where `formBodiesPlugin` is registered; other
 * routes answer a form with 415 before this check. The check is the request pipeline's
 * "antiforgery" phase (request-pipeline.ts): attached only to routes with unsafe methods, after
 * body parsing and before schema validation (`preValidation`), so GET routes and JSON clients pay
 * nothing, and endpoints with closed schemas never see the field: it is removed once checked.
 */
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { ANTIFORGERY_FIELD, Antiforgery } from '../security/crypto/antiforgery.ts';
import { GatehouseError } from '../security/errors.ts';
import type { RoutePhase } from './request-pipeline.ts';

export interface AntiforgeryOptions {
  /** The key ring's antiforgery secret. */
  readonly secret: string;
  /** `__Host-` prefix and `Secure` on the cookie. */
  readonly production: boolean;
}

/** The request token for a page's forms; sets the antiforgery cookie when the browser has none. */
export type AntiforgeryToken = (request: FastifyRequest, reply: FastifyReply) => string;

declare module 'fastify' {
  interface FastifyInstance {
    /** The request token for a page's forms; sets the antiforgery cookie when the browser has none. */
    antiforgeryToken: AntiforgeryToken;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

export function antiforgeryCookieName(production: boolean): string {
  return production ? '__Host-gh.af' : 'gh.af';
}

/** The pipeline's antiforgery phase, and `app.antiforgeryToken` for the pages' forms. */
export function antiforgeryPhase(options: AntiforgeryOptions): RoutePhase {
  const tokens = new Antiforgery(options.secret);
  const cookieName = antiforgeryCookieName(options.production);

  const antiforgeryToken: AntiforgeryToken = (request, reply) => {
    let cookieToken = readCookie(request, cookieName);
    if (cookieToken === undefined || !tokens.validate(cookieToken, tokens.requestToken(cookieToken, null), null)) {
      cookieToken = tokens.newCookieToken();
      // A session cookie: it lives as long as the browser, HttpOnly since only the server reads it.
      reply.header(
        'set-cookie',
        serializeCookie(cookieName, cookieToken, { httpOnly: true, sameSite: 'strict', path: '/', secure: options.production }),
      );
    }
    return tokens.requestToken(cookieToken, request.user?.subject ?? null);
  };

  const check: preValidationHookHandler = (request, _reply, done) => {
    if (!FORM_TYPES.test(request.headers['content-type'] ?? '')) return done();
    const form = request.body as Record<string, unknown> | undefined;
    if (tokens.validate(readCookie(request, cookieName), form?.[ANTIFORGERY_FIELD], request.user?.subject ?? null)) {
      delete form![ANTIFORGERY_FIELD];
      return done();
    }
    done(
      GatehouseError.validation(
        { [ANTIFORGERY_FIELD]: ['The form has expired or did not come from this site. Reload the page and send it again.'] },
        'The antiforgery token is missing or wrong.',
      ),
    );
  };

  return {
    scope: 'route',
    register: (app) => {
      app.decorate('antiforgeryToken', antiforgeryToken);
    },
    forRoute: (route) => ([route.method].flat().some((method) => UNSAFE_METHODS.has(method)) ? check : undefined),
  };
}

/** One cookie's value, parsed from the header only when asked for. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookies(header)[name];
}
