import type { FastifyInstance } from 'fastify';
import { PASSKEY_SCRIPT_FOLDER, type PasskeyScript } from '../pages/passkeys/passkey-script.ts';

/**
 * `GET /account/assets/passkeys.<hash>.js`: the passkey script of the login and profile pages,
 * from memory (built at start, pages/passkeys/passkey-script.ts). Anonymous, since the login page
 * needs it before anyone is signed in; one fixed URL, so no request path reaches the file system.
 */
export async function passkeyScriptRoutes(app: FastifyInstance, { script }: { script: PasskeyScript }): Promise<void> {
  app.get(`${PASSKEY_SCRIPT_FOLDER}${script.fileName}`, { config: { authorization: { allowAnonymous: true } } }, async (_request, reply) =>
    reply
      .headers({
        'content-type': 'text/javascript; charset=utf-8',
        // Its URL names its content; the answer headers add no-store where credentials travel
        // (every request with a cookie), so browsers keep it only as long as that allows.
        'cache-control': 'public, max-age=31536000, immutable',
        'cross-origin-resource-policy': 'same-origin',
      })
      .send(script.content),
  );
}
