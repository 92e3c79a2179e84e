import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import proxyAddr from 'proxy-addr';
import type { TrustedProxies } from '../config/trust-proxy.ts';
import { proxyTrust } from './proxy-trust.ts';
import { repeatedAuthorization } from './repeated-authorization.ts';
import type { ReceivedRequest } from './web-exchange.ts';

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
