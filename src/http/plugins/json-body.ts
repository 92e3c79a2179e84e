import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';
import { MAX_JSON_DEPTH, nestingDepth } from '../../endpoints/request-body.ts';
import { GatehouseError } from '../../security/errors.ts';

/**
 * The only body parser for JSON endpoints: `application/json` in UTF-8 (another charset is 415),
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
    done(new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', 'This endpoint does not accept this content type.'));
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      return done(new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8.'));
    }
    const text = body as string;
    // An empty body is no body: endpoints whose schema needs one answer 400 for it.
    if (text.trim() === '') return done(null, undefined);
    if (nestingDepth(text) > MAX_JSON_DEPTH) return done(invalid(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`));
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(invalid('The body is not valid JSON.'));
    }
  });
}

function invalid(message: string): GatehouseError {
  return GatehouseError.validation({ body: [message] }, message);
}

export const jsonBodyPlugin = fp(jsonBody, { name: 'gatehouse-json-body', fastify: '5.x' });
