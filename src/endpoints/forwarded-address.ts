import proxyAddr from 'proxy-addr';
import type { TrustedProxies } from '../config/trust-proxy.ts';

/**
 * The client's address of a Web-standard request under `TRUST_PROXY`, for runtimes that do not
 * tell the socket's peer (Next.js route handlers, workers): read from the right of
 * `X-Forwarded-For` as Express and Fastify read it (node-request.ts), the runtime's own proxy
 * standing for the peer they start from. With a number of hops, the client is that many entries
 * from the right; with the proxies' addresses, the first entry from the right that is not one of
 * them. Without `TRUST_PROXY`, or without the header, there is no address to read: ''.
 */
export function forwardedAddress(trusted: TrustedProxies): (headers: Headers) => string {
  if (trusted === false) return () => '';
  const trust = 'hops' in trusted ? (_address: string, hop: number) => hop < trusted.hops : proxyAddr.compile([...trusted.addresses]);
  return (headers) => {
    const forwarded = (headers.get('x-forwarded-for') ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    // Hop 0 is the runtime's proxy, which appended the right-most entry.
    for (let hop = 1; hop <= forwarded.length; hop++) {
      const address = forwarded[forwarded.length - hop]!;
      if (hop === forwarded.length || !trust(address, hop)) return address;
    }
    return '';
  };
}
