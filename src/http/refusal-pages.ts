import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { isBrowserNavigation } from '../endpoints/browser-navigation.ts';
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
  // A callback hook, not an async one: it runs on every answer of the application, and almost
  // every one leaves at the first test; a promise per answer would cost more than the test.
  const asPage: onSendHookHandler = (request, reply, payload, done) => {
    const status = reply.statusCode;
    if ((status !== 403 && status !== 404) || !isRefusalPage(request, reply)) return done(null, payload);
    reply.headers(app.pages.headers);
    done(null, app.pages.render('error', { status }).toString());
  };
  const isRefusalPage = (request: FastifyRequest, reply: FastifyReply) =>
    String(reply.getHeader('content-type') ?? '').startsWith(PROBLEM_JSON) && isMembershipPath(request.url) && isBrowserNavigation(request.headers);
  app.addHook('onSend', asPage);
}
