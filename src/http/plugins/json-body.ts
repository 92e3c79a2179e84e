import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { parseJsonText } from '../../endpoints/request-body.ts';
import { GatehouseError } from '../../security/errors.ts';

/**
 * The only body parser for JSON endpoints: `application/json`, parsed by `parseJsonText`
 * (endpoints/request-body.ts, the Web-standard handler's too): UTF-8 only (another charset is 415),
 * at most `MAX_JSON_DEPTH` levels, `__proto__` and `constructor.prototype` keys refused.
 * Fastify's `text/plain` parser is removed, so JSON endpoints answer a plain-text body with 415
 * (browsers send text/plain cross-site without a preflight).
 *
 * An empty body is no body under any content type (`fetch(url, { method: 'POST', body: '' })`
 * labels it text/plain): endpoints that take none accept it, endpoints that need one answer 400.
 * Any other type with a body is 415, as before.
 */
async function jsonBody(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('*', (request, _payload, done) => {
    const { headers } = request;
    // Without Transfer-Encoding, a request has a body only when its Content-Length says so (RFC 9112 §6.3).
    const empty = headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (empty) return done(null, undefined);
    done(new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted));
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const reading = parseJsonText(request.headers['content-type'], body as string);
    if ('error' in reading) return done(reading.error);
    done(null, reading.value);
  });
}

export const jsonBodyPlugin = fp(jsonBody, { name: 'gatehouse-json-body', fastify: '5.x' });
