import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import proxyAddr from 'proxy-addr';
import type { TrustedProxies } from '../config/trust-proxy.ts';
import { proxyTrust } from './proxy-trust.ts';
import { repeatedAuthorization } from './repeated-authorization.ts';
import type { BodySource, ReceivedRequest } from './web-exchange.ts';

/**
 * A Node request as schemes read it, for hosts that hand over Node's own (Express, an upgrade on
 * any Node server): headers as Node keeps them, but a repeated Authorization joined from the raw
 * headers (Node keeps only the first, and a repeat must reach the schemes to be refused), cookies
 * read from the header, the target and its query as sent.
 */
export function receivedFromNode(request: Pick<IncomingMessage, 'headers' | 'rawHeaders' | 'method'>, url: string, ip: string): ReceivedRequest {
  const query = Object.create(null) as Record<string, string | string[]>;
  // Most requests have no query: no URL to parse.
  if (url.includes('?')) {
    new URL(url, 'http://localhost').searchParams.forEach((value, name) => {
      const earlier = query[name];
      query[name] = earlier === undefined ? value : [earlier, value].flat();
    });
  }
  const cookie = request.headers.cookie;
  const repeated = request.headers.authorization === undefined ? undefined : repeatedAuthorization(request.rawHeaders);
  return {
    headers: repeated === undefined ? request.headers : { ...request.headers, authorization: repeated },
    cookies: cookie === undefined ? {} : parseCookies(cookie),
    ip,
    method: request.method ?? 'GET',
    url,
    query,
  };
}

/**
 * The client's address of a Node request under `TRUST_PROXY`, as Express and Fastify read it
 * (proxy-addr, from the socket's peer leftwards through `X-Forwarded-For` while the proxy is trusted).
 */
export function clientAddress(trusted: TrustedProxies): (request: IncomingMessage) => string {
  const trust = proxyTrust(trusted);
  if (trust === false) return (request) => request.socket.remoteAddress ?? '';
  const compiled = typeof trust === 'function' ? trust : proxyAddr.compile(trust);
  return (request) => proxyAddr(request, compiled);
}

/**
 * The body of a Node request, read from its stream: on hosts that have one, cheaper than the Web
 * request's stream built over it. A body a parser already read (Express's `express.json()`) is
 * the host's to hand over parsed; this one finds the stream ended and reads nothing.
 */
export function nodeBody(request: IncomingMessage): BodySource {
  return {
    contentType: singleValue(request.headers['content-type']),
    contentLength: singleValue(request.headers['content-length']),
    bytesUpTo: (limit) => nodeBytesUpTo(request, limit),
  };
}

function singleValue(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

function nodeBytesUpTo(request: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  if (request.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // Past the limit, the rest is left unread.
      finish();
      resolve(undefined);
    };
    const onEnd = () => {
      finish();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      finish();
      reject(error);
    };
    const finish = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onError);
  });
}
