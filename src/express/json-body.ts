import type { RequestHandler } from 'express';
import { readJsonBody } from '../endpoints/request-body.ts';
import { GatehouseError } from '../security/errors.ts';

/**
 * A JSON body parser with the rules of Gatehouse's own endpoints (endpoints/request-body.ts): JSON
 * under `application/json` only (another type with a body is 415), UTF-8 only (415), at most 64
 * levels deep and no `__proto__` or `constructor.prototype` keys (400), an empty body is no body,
 * and reading stops past `limit` (413). Its refusals go to the error handlers, `auth.errors`
 * answers them as problem+json. A body a parser read already is left as it is.
 */
export function jsonBody(limit: number): RequestHandler {
  return (request, _response, next) => {
    if (request.body !== undefined || request.readableEnded || request.method === 'GET' || request.method === 'HEAD') return next();
    if (Number(request.headers['content-length'] ?? '0') > limit) return next(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: GatehouseError) => {
      if (done) return;
      done = true;
      request.off('data', onData);
      // Past the limit, the rest is left unread.
      if (error !== undefined) return next(error);
      const read = readJsonBody(request.headers['content-type'] ?? null, Buffer.concat(chunks).toString('utf8'));
      if ('error' in read) return next(read.error);
      request.body = read.value;
      next();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(tooLarge());
      chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => finish());
    request.once('error', (error) => (done ? undefined : ((done = true), next(error))));
  };
}

function tooLarge(): GatehouseError {
  return new GatehouseError('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge);
}
