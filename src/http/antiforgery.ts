/**
 * Antiforgery for form posts (docs/reference/http.md): every form-encoded or multipart request with an
 * unsafe method must carry `__RequestVerificationToken`, derived from the antiforgery cookie for
 * the caller; missing or wrong is a 400 naming the field, and the endpoint never runs. JSON bodies
 * are exempt: a browser cannot send them cross-site without a CORS preflight.
 *
 * Which routes read forms at all is decided by where `formBodiesPlugin` is registered; other
 * routes answer a form with 415 before this check. The check is attached only to routes with unsafe methods, after body parsing and before schema
 * validation (`preValidation`), so GET routes and JSON clients pay nothing, and endpoints with
 * closed schemas never see the field: it is removed once checked.
 */
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ANTIFORGERY_FIELD, Antiforgery } from '../security/crypto/antiforgery.ts';
import { GatehouseError } from '../security/errors.ts';

export interface AntiforgeryOptions {
  /** The key ring's antiforgery secret. */
  readonly secret: string;
  /** `__Host-` prefix and `Secure` on the cookie. */
  readonly production: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The request token for a page's forms; sets the antiforgery cookie when the browser has none. */
    antiforgeryToken(request: FastifyRequest, reply: FastifyReply): string;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

export function antiforgeryCookieName(production: boolean): string {
  return production ? '__Host-gh.af' : 'gh.af';
}

async function antiforgery(app: FastifyInstance, options: AntiforgeryOptions): Promise<void> {
  const tokens = new Antiforgery(options.secret);
  const cookieName = antiforgeryCookieName(options.production);

  app.decorate('antiforgeryToken', (request: FastifyRequest, reply: FastifyReply): string => {
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
  });

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

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((method) => UNSAFE_METHODS.has(method))) return;
    const own = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [check, ...own];
  });
}

/** One cookie's value, parsed from the header only when asked for. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookies(header)[name];
}

export const antiforgeryPlugin = fp(antiforgery, { name: 'gatehouse-antiforgery', fastify: '5.x' });
