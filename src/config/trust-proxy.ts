import { isIP } from 'node:net';
import { ConfigError } from './config-error.ts';
import { type Env, readList, readString } from './parse.ts';

/**
 * Whose `X-Forwarded-*` is believed (`TRUST_PROXY`): nobody's, a number of proxy hops in front of
 * the service, or the proxies' own addresses. Either way the client's address is read from the
 * right of `X-Forwarded-For`: a proxy such as nginx, HAProxy or an AWS load balancer appends the
 * address it saw to whatever the client sent, so the left-most value is the client's own words.
 */
export type TrustedProxies = false | { readonly hops: number } | { readonly addresses: readonly string[] };

/** proxy-addr's names for address ranges: 127.0.0.0/8 and ::1, link-local, and private ranges. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_HOPS = 32;
const EXPECTED = `false, a number of proxy hops (1 to ${MAX_HOPS}; true means 1), or a comma-separated list of proxy addresses or CIDRs (e.g. 10.0.0.0/8,loopback)`;

export function readTrustProxy(env: Env): TrustedProxies {
  const value = readString(env, 'TRUST_PROXY');
  if (value === undefined || /^(false|no|0)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return { hops: 1 };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) throw new ConfigError('TRUST_PROXY', EXPECTED, value);
    return { hops };
  }
  const addresses = readList(env, 'TRUST_PROXY');
  for (const address of addresses) {
    if (!isAddressOrRange(address)) throw new ConfigError('TRUST_PROXY', EXPECTED, address);
  }
  return { addresses };
}

/** `10.1.2.3`, `::1`, `10.0.0.0/8`, `fd00::/8`, or one of proxy-addr's range names. */
function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}
