import type { ServerResponse } from 'node:http';
import { serialize as serializeCookie } from 'cookie';
import type { EndpointResponse } from './endpoint.ts';

/** A Web-standard answer written to Node's response, every `Set-Cookie` line kept. */
export async function writeNodeResponse(response: ServerResponse, answer: Response): Promise<void> {
  response.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (name !== 'set-cookie') response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader('set-cookie', cookies);
  response.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * An endpoint's answer written to Node's response as `writeNodeResponse(response, toResponse(answer))`
 * writes it, byte for byte, without the Web `Headers` and `Response` in between: the headers by
 * lower-case name (one named twice joined with a comma, values without surrounding whitespace),
 * in the order of their names, then one `Set-Cookie` line a cookie; a body in JSON unless it is
 * text or bytes already, its type `application/json` unless it says otherwise, in UTF-8.
 */
export function writeEndpointResponse(response: ServerResponse, answer: EndpointResponse): void {
  const headers = new Map<string, string>();
  const cookies: string[] = [];
  for (const [name, value] of Object.entries(answer.headers ?? {})) {
    const key = name.toLowerCase();
    const trimmed = value.replace(SURROUNDING_WHITESPACE, '');
    const earlier = headers.get(key);
    if (key === 'set-cookie') cookies.push(trimmed);
    else headers.set(key, earlier === undefined ? trimmed : `${earlier}, ${trimmed}`);
  }
  for (const { name, value, attributes } of answer.cookies ?? []) cookies.push(serializeCookie(name, value, attributes));
  const { body } = answer;
  if (body !== undefined) {
    const type = headers.get('content-type') ?? 'application/json';
    headers.set('content-type', CHARSET.test(type) ? type : `${type}; charset=utf-8`);
  }
  response.statusCode = answer.status;
  for (const name of [...headers.keys()].sort()) response.setHeader(name, headers.get(name)!);
  if (cookies.length > 0) response.setHeader('set-cookie', cookies);
  response.end(body === undefined ? EMPTY : typeof body === 'string' ? Buffer.from(body) : body instanceof Uint8Array ? body : Buffer.from(JSON.stringify(body)));
}

const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const CHARSET = /;\s*charset=/i;
const EMPTY = Buffer.alloc(0);
