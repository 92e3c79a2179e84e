import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { refusalPageFor } from '../endpoints/refusal-page.ts';

/**
 * A browser's 403 or 404 under the membership paths as a page (endpoints/refusal-page.ts), done
 * when the answer is sent, so that every source of such a refusal is covered alike: the result
 * handler's forbid, the not-found handler, a route's own 404.
 */
export function refusalPages(app: FastifyInstance, prefix: string): void {
  const pageFor = refusalPageFor(app.pages, prefix);
  // A callback hook, not an async one: it runs on every answer of the application, and almost
  // every one leaves at the first test; a promise per answer would cost more than the test.
  const asPage: onSendHookHandler = (request, reply, payload, done) => {
    const status = reply.statusCode;
    if (status !== 403 && status !== 404) return done(null, payload);
    const contentType = reply.getHeader('content-type');
    const page = pageFor({ status, contentType: contentType === undefined ? undefined : String(contentType), url: request.url, headers: request.headers });
    if (page === undefined) return done(null, payload);
    reply.headers(page.headers);
    done(null, page.body);
  };
  app.addHook('onSend', asPage);
}
