/**
 * Node's own refusals of a connection, before any host sees a request (its `clientError` event):
 * a request whose headers and body did not arrive within `REQUEST_TIMEOUT_SECONDS` (408),
 * headers over Node's 16 KiB (431), bytes that are not HTTP (400). Node and Fastify would answer
 * them in a JSON or HTML of their own; here they are problem+json like every other error (docs/reference/http.md),
 * with the headers every answer carries, and the connection closes.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { PROBLEM_JSON, problem, type ProblemBody } from '../security/problem-details.ts';
import { refusalHeaders } from './response-headers.ts';

const NOT_HTTP = 'The request is not valid HTTP.';

/** The problem for one of Node's client errors, by its code: in English, since no request was parsed whose `Accept-Language` could choose another. */
export function clientErrorProblem(code: string | undefined): ProblemBody {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return problem('GH_REQUEST_TIMEOUT', 'The request did not arrive in time.');
    case 'HPE_HEADER_OVERFLOW':
      return problem('GH_HEADERS_TOO_LARGE', 'The request headers are too large.');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return problem('GH_PAYLOAD_TOO_LARGE', 'The chunk extensions are too large.');
    default:
      return problem('GH_VALIDATION_FAILED', NOT_HTTP, { errors: { request: [NOT_HTTP] } });
  }
}

/** The whole HTTP/1.1 answer for a problem, written on a socket Node's parser has given up on. */
export function rawProblemAnswer(body: ProblemBody, production: boolean): string {
  const text = JSON.stringify(body);
  const headers = [
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? ''}`,
    `Content-Type: ${PROBLEM_JSON}`,
    `Content-Length: ${Buffer.byteLength(text)}`,
    ...Object.entries(refusalHeaders(production)).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${text}`;
}

/** Socket state Node keeps for the request in flight on it, if any. */
interface HttpSocket extends Socket {
  readonly _httpMessage?: { readonly headersSent?: boolean } | null;
}

/**
 * The `clientError` listener (Fastify's `clientErrorHandler`): answers with problem+json when nothing of an answer has been
 * written on the connection yet (Node's own rule: never corrupt an answer in progress), then
 * closes it. A reset connection has nobody to answer.
 */
export function clientErrorHandler(production: boolean): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as HttpSocket)._httpMessage;
    if (socket.writable && !inFlight?.headersSent) socket.write(rawProblemAnswer(clientErrorProblem(error.code), production));
    socket.destroy();
  };
}

/**
 * Node's limits on how long a request may take to arrive (`REQUEST_TIMEOUT_SECONDS`): headers
 * and body both within the timeout, else 408 and the connection closes; a body trickled a byte at
 * a time holds a connection no longer than that. Node checks its connections periodically (every
 * 30 s by default, which would let a slow request live up to twice the timeout): here at least
 * every second. An upgraded WebSocket has left the HTTP parser and is not cut.
 */
export function requestTimeouts(seconds: number): { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number } {
  const milliseconds = Math.ceil(seconds * 1000);
  return { requestTimeout: milliseconds, headersTimeout: milliseconds, connectionsCheckingInterval: Math.min(1000, milliseconds) };
}
