/**
 * A Web-standard `Request` as Gatehouse's endpoints read it, and their answers as a `Response`:
 * shared by the endpoints' handler and GraphQL's (graphql/graphql-fetch.ts).
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { nodeBody, receivedFromNode } from './node-request.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import { GatehouseError } from '../security/errors.ts';
import { problem, problemOf } from '../security/problem-details.ts';
import { isFormContentType } from './antiforgery.ts';
import type { EndpointRequest, EndpointResponse } from './endpoint.ts';
import { readFormBody } from './form-body.ts';
import { problemResponse } from './problem-response.ts';
import { type BodyReading, readJsonBody } from './request-body.ts';

/** What a request brings, in the shape schemes and endpoints read. */
export type ReceivedRequest = Required<AuthenticationRequest> & Pick<EndpointRequest, 'headers' | 'cookies' | 'query'>;

/** The request as schemes read it: headers by lower-case name, cookies, address, method, target and query. */
export function receivedRequestOf(request: Request, url: URL, ip: string): ReceivedRequest {
  const headers = Object.create(null) as Record<string, string>;
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const query = Object.create(null) as Record<string, string | string[]>;
  url.searchParams.forEach((value, name) => {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  });
  const cookies = headers.cookie === undefined ? {} : parseCookies(headers.cookie);
  return { headers, cookies, ip, method: request.method, url: `${url.pathname}${url.search}`, query };
}

/** The request as schemes read it, from the Node request behind it when the host gives one. */
export function receivedFrom(request: Request, url: URL, options: { readonly ip?: string; readonly node?: IncomingMessage }): ReceivedRequest {
  const ip = options.ip ?? '';
  return options.node === undefined ? receivedRequestOf(request, url, ip) : receivedFromNode(options.node, `${url.pathname}${url.search}`, ip);
}

/** The request's body source: the Node request's stream when the host gives one. */
export function bodyOf(request: Request, options: { readonly node?: IncomingMessage }): BodySource {
  return options.node === undefined ? webBody(request) : nodeBody(options.node);
}

/** Where a body is read from: the Web request's stream, or the host's own (Node's request). */
export interface BodySource {
  readonly contentType: string | null;
  readonly contentLength: string | null;
  /** The body's bytes, or undefined as soon as they pass `limit` (the rest is not read). */
  bytesUpTo(limit: number): Promise<Uint8Array | undefined>;
}

/** The body of a Web-standard request. */
export function webBody(request: Request): BodySource {
  return {
    contentType: request.headers.get('content-type'),
    contentLength: request.headers.get('content-length'),
    bytesUpTo: (limit) => streamBytesUpTo(request.body, limit),
  };
}

/**
 * The raw body, read only up to the limit: a larger one is 413 once the limit is passed, declared
 * or not. JSON always; url-encoded and multipart forms when the endpoint takes them (415 otherwise).
 */
export async function rawBody(source: BodySource, limit: number, forms: boolean): Promise<BodyReading> {
  if (Number(source.contentLength ?? '0') > limit) return tooLarge();
  const bytes = await source.bytesUpTo(limit);
  if (bytes === undefined) return tooLarge();
  const type = source.contentType;
  if (forms && isFormContentType(type ?? undefined)) return readFormBody(type!, bytes);
  return readJsonBody(type, Buffer.from(bytes).toString('utf8'));
}

function tooLarge(): BodyReading {
  return { error: new GatehouseError('GH_PAYLOAD_TOO_LARGE', (m) => m.problemBodyTooLarge) };
}

async function streamBytesUpTo(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
}

export function errorResponse(error: GatehouseError): EndpointResponse {
  const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  return problemResponse(problemOf(error), headers);
}

/**
 * The `Response` of an endpoint's answer, as Fastify writes it: one `Set-Cookie` a cookie; a body
 * in JSON (text already serialized goes as it is), its type `application/json` unless it says
 * otherwise, in UTF-8.
 */
export function toResponse(response: EndpointResponse): Response {
  // A plain record, not `Headers`: runtimes that write a Response to a socket themselves
  // (`@hono/node-server`) take a record as it is, where `Headers` would be built and read again.
  // The same names and values as `Headers` would hold: lower case, a name given twice combined,
  // values without surrounding whitespace, each cookie its own `Set-Cookie`.
  const headers: Record<string, string> = {};
  const setCookies: string[] = [];
  for (const name in response.headers) {
    const key = name.toLowerCase();
    const value = withoutSurroundingWhitespace(response.headers[name]!);
    if (key === 'set-cookie') setCookies.push(value);
    else headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
  }
  for (const { name, value, attributes } of response.cookies ?? []) setCookies.push(serializeCookie(name, value, attributes));
  const { body, status } = response;
  if (body !== undefined) {
    const type = headers['content-type'] ?? 'application/json';
    headers['content-type'] = /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`;
  }
  const init: ResponseInit = {
    status,
    headers: setCookies.length === 0 ? headers : [...Object.entries(headers), ...setCookies.map((cookie): [string, string] => ['set-cookie', cookie])],
  };
  if (body === undefined) return new Response(null, init);
  return new Response(typeof body === 'string' ? body : body instanceof Uint8Array ? new Uint8Array(body) : JSON.stringify(body), init);
}

/** A header value as `Headers` keeps it: without leading or trailing tabs, spaces, CRs and LFs. */
function withoutSurroundingWhitespace(value: string): string {
  return HTTP_WHITESPACE.test(value) ? value.replace(SURROUNDING_WHITESPACE, '') : value;
}

const HTTP_WHITESPACE = /^[\t\n\r ]|[\t\n\r ]$/;
const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * Whether the request's headers can be read. A runtime may build a Web request's headers at their
 * first use (`@hono/node-server` does), and `Headers` refuses values Node's own parser refuses on
 * a socket (a NUL byte): only a request injected past the parser has them. Hosts answer such a
 * request as Node answers it: 400.
 */
export function readableHeaders(request: Request): boolean {
  try {
    request.headers.forEach(() => undefined);
    return true;
  } catch {
    return false;
  }
}
