import { createServer, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { EndpointResponse } from './endpoint.ts';
import { writeEndpointResponse, writeNodeResponse } from './node-response.ts';
import { toResponse } from './web-exchange.ts';

/** The bytes a server sends for one request written by `write` (its `Date` line left out). */
async function bytesOf(write: (response: ServerResponse) => Promise<void> | void, method = 'GET'): Promise<string> {
  const server = createServer((_request, response) => void write(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    return await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(`${method} / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text.replace(/^Date: .*\r\n/im, '')));
      socket.on('error', reject);
    });
  } finally {
    server.close();
  }
}

const ANSWERS: Record<string, EndpointResponse> = {
  'a JSON object': { status: 200, body: { data: { posts: [{ id: '1', title: 'é ☃' }] } } },
  'text with its own type and charset': { status: 200, headers: { 'content-type': 'application/graphql-response+json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }, body: '{"data":null}' },
  'a type without charset': { status: 400, headers: { 'content-type': 'application/problem+json', allow: 'GET, POST' }, body: '{"errors":[]}' },
  'bytes': { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from('{"data":{}}') },
  'no body': { status: 204, headers: { 'x-content-type-options': 'nosniff' } },
  'a null body': { status: 200, body: null },
  'cookies, in a header and as cookies': {
    status: 200,
    headers: { 'Set-Cookie': 'a=1; Path=/', 'content-type': 'text/plain' },
    cookies: [{ name: 'session', value: 'x y', attributes: { httpOnly: true, path: '/', sameSite: 'lax' } }],
    body: 'ok',
  },
  'names in mixed case, named twice, values with surrounding spaces': { status: 401, headers: { 'WWW-Authenticate': ' Bearer ', 'www-authenticate': 'Basic', Vary: 'Origin' }, body: 'no' },
  'a lone surrogate in text': { status: 200, body: 'a\ud800b' },
};

describe('writeEndpointResponse', () => {
  for (const [name, answer] of Object.entries(ANSWERS)) {
    it(`writes ${name} as writeNodeResponse writes its Response`, async () => {
      for (const method of ['GET', 'HEAD']) {
        const expected = await bytesOf((response) => writeNodeResponse(response, toResponse(answer)), method);
        expect(await bytesOf((response) => writeEndpointResponse(response, answer), method)).toBe(expected);
      }
    });
  }
});
