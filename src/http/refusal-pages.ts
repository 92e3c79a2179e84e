import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { isBrowserNavigation } from './browser-navigation.ts';
import { PROBLEM_JSON } from './problem.ts';

/**
 * The membership's paths under `prefix` (its pages, token endpoints and admin API), whose
 * refusals a browser sees as pages. The prefix is a plain path (MembershipPaths checks it).
 */
export function membershipPathTest(prefix: string): (url: string) => boolean {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:account|auth|admin)(?:[/?]|$)`);
  return (url) => pattern.test(url);
}

/**
 * A 403 or 404 problem under the membership paths becomes a page when a browser navigated there
 * (the negotiation of the login redirect: `isBrowserNavigation`), rendered by the error page of
 * the service's page options; API clients, scripts and other paths keep problem+json. Done when
 * the answer is sent, so that every source of such a refusal is covered alike: the result
 * handler's forbid, the not-found handler, a route's own 404. An answer that is not
 * problem+json (a replaced result handler's own) is left as it is.
 */
export function refusalPages(app: FastifyInstance, prefix: string): void {
  const isMembershipPath = membershipPathTest(prefix);
  const asPage: onSendHookHandler = async (request, reply, payload) => {
    const status = reply.statusCode;
    if (status !== 403 && status !== 404) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith(PROBLEM_JSON)) return payload;
    if (!isMembershipPath(request.url) || !isBrowserNavigation(request.headers)) return payload;
    reply.headers(app.pages.headers);
    return app.pages.render('error', { status }).toString();
  };
  app.addHook('onSend', asPage);
}
