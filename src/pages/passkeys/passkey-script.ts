import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertPeerInstalled } from '../../platform/optional-peers.ts';

/**
 * The one script of the account pages: @simplewebauthn/browser's browser build (its functions on
 * the global `SimpleWebAuthnBrowser`) followed by `passkeys.js`, this service's code that calls
 * them from the login and profile pages. One file, built once at start and served from memory by
 * this service, so the pages' Content-Security-Policy can allow scripts from this origin only,
 * never inline, never from a CDN (docs/decisions/0061-the-passkey-script.md).
 */
export interface PasskeyScript {
  /** The file's name under the assets path: it names its content, so a new version is a new URL. */
  readonly fileName: string;
  readonly content: Buffer;
  /** Subresource Integrity of `content`, for the `integrity` attribute of the `<script>` element. */
  readonly integrity: string;
}

/** Where the script is served, under the membership's prefix. */
export const PASSKEY_SCRIPT_FOLDER = '/account/assets/';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The package's browser build (a UMD bundle, ES2021), which its `exports` do not name. */
const BROWSER_BUILD = 'dist/bundle/index.umd.min.js';

/** The build's file, found from the package's resolved entry point up to its root. */
function browserBuild(): string {
  assertPeerInstalled('@simplewebauthn/browser', 'Passkeys (their page script)');
  let folder = dirname(require.resolve('@simplewebauthn/browser'));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@simplewebauthn/browser') {
      const file = join(folder, BROWSER_BUILD);
      if (!existsSync(file)) throw new Error(`@simplewebauthn/browser has no ${BROWSER_BUILD}: install the version of gatehouse-auth's peerDependencies.`);
      return file;
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error('@simplewebauthn/browser: its package.json was not found above its entry point.');
    folder = parent;
  }
}

/** Reads and joins the two files; called once, at start, when passkeys are on (a missing package fails the start). */
export function passkeyScript(): PasskeyScript {
  // The build opens with its name and version in a comment; `;` ends it whatever its last line.
  const content = Buffer.concat([
    readFileSync(browserBuild()),
    Buffer.from('\n;\n'),
    readFileSync(join(here, 'passkeys.js')),
  ]);
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  return {
    fileName: `passkeys.${hash}.js`,
    content,
    integrity: `sha384-${createHash('sha384').update(content).digest('base64')}`,
  };
}
