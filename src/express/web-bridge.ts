import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { FetchRequestOptions } from '../endpoints/fetch-handler.ts';
import { writeNodeResponse } from '../endpoints/node-response.ts';

/** The Express request as a Web-standard one; its body streamed unless a parser read it already. */
export function webRequest(request: Request): globalThis.Request {
  const origin = `${request.protocol}://${request.headers.host ?? 'localhost'}`;
  // From the raw headers: Node keeps only the first of some repeated ones (Authorization), and a
  // repeat must reach the schemes, joined, to be refused as malformed.
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body === undefined && !request.readableEnded;
  return new globalThis.Request(new URL(request.originalUrl, origin), {
    method: request.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream, duplex: 'half' } : {}),
  });
}

/** The Express request's URL: its target as sent, on its protocol and host (throws when they make none). */
export function requestUrl(request: Request): URL {
  return new URL(request.originalUrl, `${request.protocol}://${request.headers.host ?? 'localhost'}`);
}

/**
 * The Express request for a Web-standard handler that reads its headers and body from Node's
 * request (`FetchRequestOptions.node`): only its method and URL, so none of it is built twice.
 * A body an Express parser already read is handed over parsed.
 */
export function fetchOptionsOf(request: Request): [globalThis.Request, FetchRequestOptions] {
  const web = new globalThis.Request(requestUrl(request), { method: request.method });
  return [web, { ip: request.ip ?? '', node: request, ...(request.body !== undefined ? { body: request.body } : {}) }];
}

/** A Web-standard answer written to Express's response, every `Set-Cookie` line kept. */
export const writeWebResponse: (response: Response, answer: globalThis.Response) => Promise<void> = writeNodeResponse;
