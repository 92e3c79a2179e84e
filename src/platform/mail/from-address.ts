import { isIP } from 'node:net';

/**
 * The `From` of every mail: `<product> <no-reply@host>` (`Gatehouse` unless the application names
 * its product), host being PUBLIC_URL's, so that mail comes from the domain its links point to.
 * An IPv4 host becomes an address literal (`no-reply@[127.0.0.1]`, RFC 5321); `URL.hostname`
 * already brackets IPv6.
 */
export function fromAddress(publicUrl: URL, name = 'Gatehouse'): { name: string; address: string } {
  const host = publicUrl.hostname;
  return { name, address: `no-reply@${isIP(host) === 4 ? `[${host}]` : host}` };
}
