import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * Where the package keeps its browser build. The package exports only its module entry points,
 * so the file is found from the folder of the resolved entry, up to the package's root.
 */
const BUNDLE_CANDIDATES = ['dist/bundle/index.umd.min.js', 'bundle/index.umd.min.js', 'esm/bundle/index.umd.min.js'];

function browserBundle(): { file: string; version: string } {
  let folder = dirname(require.resolve('@simplewebauthn/browser'));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version: string };
      if (name === '@simplewebauthn/browser') {
        const file = BUNDLE_CANDIDATES.map((candidate) => join(folder, candidate)).find((path) => existsSync(path));
        if (file === undefined) throw new Error(`@simplewebauthn/browser ${version} has no browser build at ${BUNDLE_CANDIDATES.join(' or ')}.`);
        return { file, version };
      }
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error('@simplewebauthn/browser: its package.json was not found above its entry point.');
    folder = parent;
  }
}

/** Reads and joins the two files; called once, when passkeys are on. */
export function passkeyScript(): PasskeyScript {
  const bundle = browserBundle();
  const content = Buffer.concat([
    Buffer.from(`/* @simplewebauthn/browser ${bundle.version} (MIT) */\n`),
    readFileSync(bundle.file),
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
