import { isIPv4, isIPv6 } from 'node:net';

/** The groups of an IPv6 address that name its network: a /64, what one subscriber or site is given. */
const IPV6_CLIENT_GROUPS = 4;

/**
 * The client a request counts as, from its address (`request.ip`, which `TRUST_PROXY` decides):
 * the rate limits and the hashing queue's turns are kept per client key. An IPv4 address is its
 * own key, as is an IPv4 address written as IPv6 (`::ffff:192.0.2.1`, from a dual-stack socket).
 * An IPv6 client is its /64 (`2001:db8:1:2::/64`): a host is routinely handed a whole /64
 * (RFC 4291's interface identifiers, SLAAC, privacy addresses that change daily), so one
 * attacker can send each request from a fresh address of its own /64, and counting per address
 * would give it 2^64 budgets. Anything else (no address, a socket path) is kept as it came.
 */
export function clientKey(ip: string | undefined): string {
  if (ip === undefined || ip === '') return 'unknown';
  if (isIPv4(ip)) return ip;
  const address = ip.replace(/%.*$/, '');
  if (!isIPv6(address)) return ip;
  const groups = ipv6Groups(address);
  const [, , , , , marker, high = 0, low = 0] = groups;
  const mappedIpv4 = groups.slice(0, 5).every((group) => group === 0) && marker === 0xffff;
  if (mappedIpv4) return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  return `${groups.slice(0, IPV6_CLIENT_GROUPS).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 read). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array.from({ length: 8 - front.length - back.length }, () => 0), ...back];
}
