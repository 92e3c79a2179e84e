import { Busboy } from '@fastify/busboy';
import formBody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { MAX_FORM_FIELDS } from '../../endpoints/form-body.ts';
import type { Wording } from '../../i18n/phrase.ts';
import { GatehouseError } from '../../security/errors.ts';

/** The same bound as the Web-standard handler's (endpoints/form-body.ts). */
const MAX_FIELDS = MAX_FORM_FIELDS;

/**
 * Form bodies for the routes that take form posts (the account pages), and for no others: JSON
 * endpoints keep answering forms with 415 (SEC-120). Register it inside the context of those
 * routes. Url-encoded bodies go through @fastify/formbody; `multipart/form-data` with text fields
 * only is parsed into the same flat object (busboy, as @fastify/multipart uses, without its file
 * handling) — browsers send both cross-site without a preflight, so both must reach the
 * antiforgery check. A file part is refused: no endpoint takes files.
 */
async function formBodies(app: FastifyInstance): Promise<void> {
  await app.register(formBody);
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    let failed = false;
    const limit = app.initialConfig.bodyLimit ?? 1_048_576;
    let received = 0;
    const stop = (error: GatehouseError) => {
      if (failed) return;
      failed = true;
      payload.unpipe(parser);
      payload.resume();
      done(error, undefined);
    };
    const fail = (message: Wording) => stop(GatehouseError.validation({ body: [message] }, message));
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: request.headers as { 'content-type': string },
        limits: { fields: MAX_FIELDS, fieldSize: limit, files: 0, parts: MAX_FIELDS },
      });
    } catch {
      return done(GatehouseError.validation({ body: [(m) => m.problemMultipartMalformed] }, (m) => m.problemMultipartMalformed), undefined);
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (_name, stream) => {
      stream.resume();
      fail((m) => m.problemNoFileUploads);
    });
    parser.on('filesLimit', () => fail((m) => m.problemNoFileUploads));
    parser.on('fieldsLimit', () => fail((m) => m.problemTooManyFields({ max: MAX_FIELDS })));
    parser.on('partsLimit', () => fail((m) => m.problemTooManyFields({ max: MAX_FIELDS })));
    parser.on('error', () => fail((m) => m.problemMultipartMalformed));
    parser.on('finish', () => {
      if (!failed) done(null, fields);
    });
    payload.on('error', (error: Error) => {
      if (failed) return;
      failed = true;
      done(error, undefined);
    });
    // A stream parser gets no body limit from Fastify: count the bytes here.
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) stop(new GatehouseError('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge));
    });
    payload.pipe(parser);
  });
}

export const formBodiesPlugin = fp(formBodies, { name: 'gatehouse-form-bodies', fastify: '5.x' });
