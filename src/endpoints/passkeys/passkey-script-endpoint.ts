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
      // Its URL names its content: a browser keeps it for good, and nothing stale can run.
      'cache-control': 'public, max-age=31536000, immutable',
      'cross-origin-resource-policy': 'same-origin',
    },
    body: script.content,
  };
  return defineEndpoint({
    method: 'GET',
    path: `${PASSKEY_SCRIPT_FOLDER}${script.fileName}`,
    authorization: { allowAnonymous: true },
    publicAsset: true,
    handle: async () => answer,
  });
}
