/**
 * A request's path as a log may show it: without the query string (codes and, from careless
 * clients, tokens travel there), and with the invitation code of `/account/invitations/<code>`
 * (under any mount point) replaced, since the contract puts that code in the path itself.
 */
export function loggedPath(url: string): string {
  const path = url.split('?', 1)[0]!;
  return path.replace(INVITATION_CODE, '$1[code]');
}

const INVITATION_CODE = /(\/account\/invitations\/)[^/]+/;
