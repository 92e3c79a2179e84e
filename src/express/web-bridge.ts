import { Readable } from 'node:stream';
import type { Request, Response } from 'express';

/** The Express request as a Web-standard one; its body streamed unless a parser read it already. */
export function webRequest(request: Request): globalThis.Request {
  const origin = `${request.protocol}://${request.headers.host ?? 'localhost'}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of [value].flat()) headers.append(name, one);
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body === undefined && !request.readableEnded;
  return new globalThis.Request(new URL(request.originalUrl, origin), {
    method: request.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream, duplex: 'half' } : {}),
  });
}

/** A Web-standard answer written to Express's response, every `Set-Cookie` line kept. */
export async function writeWebResponse(response: Response, answer: globalThis.Response): Promise<void> {
  response.status(answer.status);
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader('set-cookie', cookies);
  response.end(Buffer.from(await answer.arrayBuffer()));
}
