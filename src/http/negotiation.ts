import type { FastifyReply, FastifyRequest } from 'fastify';
import { prefersHtml } from '../endpoints/browser-navigation.ts';
import { type Html, PAGE_HEADERS } from '../pages/html.ts';

/**
 * True when the client ranks HTML first (a browser loading a page): `GET` under `/account/*`
 * answers a page then, JSON otherwise (docs/reference/http.md). A bare `*\/*` (curl, fetch) gets JSON.
 */
export function wantsPage(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && prefersHtml(accept);
}

/** A form post (url-encoded or multipart), which answers with pages and redirects instead of JSON. */
export function isFormPost(request: FastifyRequest): boolean {
  return /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(request.headers['content-type'] ?? '');
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The pages' headers for this service's configuration (`pageHeaders`); PAGE_HEADERS when not set. */
    pageHeaders?: Readonly<Record<string, string>>;
  }
}

/** A page with its security headers: those of the service's pages (`app.pages`), which allow the passkey script on the pages that load it. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  const headers = reply.server.pages?.headersFor(page) ?? reply.server.pageHeaders ?? PAGE_HEADERS;
  return reply.code(status).headers(headers).send(page.toString());
}

/** After a successful form post: 303 See Other, so a reload does not post again. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}
