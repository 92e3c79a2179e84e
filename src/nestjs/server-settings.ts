import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { clientErrorHandler, requestTimeouts } from '../endpoints/client-errors.ts';
import { knownErrorAnswer } from '../endpoints/error-answers.ts';
import { writeNodeResponse } from '../endpoints/node-response.ts';
import { INVALID_URL, validPercentEncoding } from '../endpoints/percent-encoding.ts';
import { refusalHeaders } from '../endpoints/response-headers.ts';
import { toResponse } from '../endpoints/web-exchange.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import { GATEHOUSE } from './gatehouse-module.ts';

/**
 * Gives the application's Node server Gatehouse's settings, on either platform: a request whose
 * headers and body have not arrived within `REQUEST_TIMEOUT_SECONDS` is cut off with 408, and
 * Node's own refusals (408, 431, bytes that are not HTTP) are problem+json. On platform-express, a
 * path that is not valid percent-encoding is 400 problem+json, as on every host (Express's router
 * would fail on it first); on platform-fastify, give the adapter `serverOptions(config)` from
 * `gatehouse-auth/fastify`, whose `frameworkErrors` answer it. Call it before `app.listen()`: the
 * server checks its connections at the interval it has when it starts listening.
 */
export function applyServerSettings(app: INestApplication): void {
  const { config } = gatehouseServices(app.get<Gatehouse>(GATEHOUSE));
  const invalid = knownErrorAnswer(INVALID_URL)!.response;
  app.use((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    if (validPercentEncoding((request.url ?? '/').split('?', 1)[0]!)) return next();
    void writeNodeResponse(response, toResponse({ ...invalid, headers: { ...invalid.headers, ...refusalHeaders(config.production) } }));
  });
  const server = app.getHttpServer() as Server;
  Object.assign(server, requestTimeouts(config.requestTimeoutSeconds));
  // The platform's own handler (Fastify's) would answer the same errors a second time.
  server.removeAllListeners('clientError');
  server.on('clientError', clientErrorHandler(config.production));
}
