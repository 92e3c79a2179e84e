import { isIP } from 'node:net';
import { sha256 } from '../security/crypto/digest.ts';
import { constantTimeEqual } from '../security/crypto/constant-time.ts';

export interface MetricsAccessOptions {
  /** `METRICS_TOKEN`: a scraper sending `Authorization: Bearer <token>` is let in from anywhere. */
  readonly token: string | undefined;
  /**
   * `TRUST_PROXY` trusts a proxy: a proxy on this host makes every caller look local, so a
   * loopback address proves nothing and only the token lets a scraper in.
   */
  readonly behindProxy: boolean;
}

/** What the check reads of a request: the socket's peer (never `X-Forwarded-For`) and its Authorization header. */
export interface MetricsCaller {
  readonly socketAddress: string | undefined;
  readonly authorization: string | undefined;
}

/**
 * Who may read the metrics (decision 0057): a caller presenting the token; or, when there is no
 * token and no trusted proxy, a caller on the loopback interface. A token, once set, is the only
 * way in: any local process (another user's, a container sharing the host's network) is on
 * loopback too. The token is compared as SHA-256 digests, in constant time whatever its length.
 */
export function metricsAccess({ token, behindProxy }: MetricsAccessOptions): (caller: MetricsCaller) => boolean {
  const expected = token === undefined ? undefined : sha256(token);
  const loopbackAllowed = token === undefined && !behindProxy;
  return ({ socketAddress, authorization }) => {
    const presented = bearerToken(authorization);
    if (expected !== undefined && presented !== undefined && constantTimeEqual(sha256(presented), expected)) return true;
    return loopbackAllowed && isLoopback(socketAddress);
  };
}

function bearerToken(authorization: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  return match?.[1];
}

/** 127.0.0.0/8, ::1, and IPv4 loopback as an IPv6-mapped address (a dual-stack socket's view). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const ipv4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  if (isIP(ipv4) === 4) return ipv4.startsWith('127.');
  // The URL parser writes an IPv6 address in its shortest form: 0:0:0:0:0:0:0:1 is [::1].
  return isIP(address) === 6 && new URL(`http://[${address}]/`).hostname === '[::1]';
}
