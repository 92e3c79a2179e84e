import type { TrustedProxies } from '../config/trust-proxy.ts';

/** What Fastify's `trustProxy` takes: false, a list proxy-addr compiles, or proxy-addr's trust function. */
type FastifyProxyTrust = false | string[] | ((address: string, hop: number) => boolean);

/**
 * `TRUST_PROXY` as Fastify's `trustProxy`. proxy-addr walks from the socket's peer (hop 0)
 * leftwards through `X-Forwarded-For` while the trust function says yes; the client is the first
 * address it does not trust. A hop count becomes a function of the hop alone, as Express's
 * `trust proxy` = n does: Fastify's own number and `true` would not do (this Fastify ignores
 * `X-Forwarded-For` for a number, and `true` believes its left-most value, which the client wrote).
 */
export function proxyTrust(trusted: TrustedProxies): FastifyProxyTrust {
  if (trusted === false) return false;
  if ('addresses' in trusted) return [...trusted.addresses];
  const { hops } = trusted;
  return (_address, hop) => hop < hops;
}
