import { PASSKEY_SCRIPT_FOLDER, type PasskeyScript } from '../../pages/passkeys/passkey-script.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';

/**
 * `GET /account/assets/passkeys.<hash>.js`: the passkey script of the login and profile pages,
 * from memory (built at start, pages/passkeys/passkey-script.ts). Anonymous, since the login page
 * needs it before anyone is signed in; one fixed URL, so no request path reaches the file system.
 */
export function passkeyScriptEndpoint(script: PasskeyScript): Endpoint {
  const answer = {
    status: 200,
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      // No caching header of its own: like every answer under /account/ (and every answer to a
      // request with a cookie, which a page's always is), it is `no-store`. About 17 kB per
      // page that loads it; its URL still names its content, so nothing stale can run.
      'cross-origin-resource-policy': 'same-origin',
    },
    body: script.content,
  };
  return defineEndpoint({
    method: 'GET',
    path: `${PASSKEY_SCRIPT_FOLDER}${script.fileName}`,
    authorization: { allowAnonymous: true },
    handle: async () => answer,
  });
}
