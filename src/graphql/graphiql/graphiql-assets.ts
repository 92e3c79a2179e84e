import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertPeerInstalled } from '../../platform/optional-peers.ts';

/** One file GraphiQL's page loads, served by this service under `/graphiql/assets/`. */
export interface GraphiqlAsset {
  /** Its path under `/graphiql/assets/`, which names its version: a new version is a new URL. */
  readonly path: string;
  readonly file: string;
  readonly contentType: string;
  readonly size: number;
}

/** The page's files in the order it loads them: scripts run in this order. */
export interface GraphiqlAssets {
  readonly scripts: readonly GraphiqlAsset[];
  readonly styles: readonly GraphiqlAsset[];
  /** The allow-list: a request names one of these paths or gets a 404; no path is ever built from it. */
  readonly byPath: ReadonlyMap<string, GraphiqlAsset>;
}

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/**
 * A browser-ready file of an npm package (GraphiQL 3's UMD build and the React 18 UMD builds it
 * needs), found through Node's resolution from this module. `react` exports no `umd/` subpath,
 * so files are found beside the package's `package.json`, which every package exports.
 */
function packageAsset(name: string, file: string, contentType: string): GraphiqlAsset {
  assertPeerInstalled(name, 'The GraphiQL page (served outside production)');
  const manifestPath = require.resolve(`${name}/package.json`);
  const { version } = require(manifestPath) as { version: string };
  return asset(`${name}@${version}/${file.split('/').pop()}`, join(dirname(manifestPath), file), contentType);
}

/** A file of this service's own, named by a hash of its content. */
function ownAsset(file: string, contentType: string): GraphiqlAsset {
  const path = join(here, file);
  const hash = createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  return asset(`${file.slice(0, dot)}.${hash}${file.slice(dot)}`, path, contentType);
}

function asset(path: string, file: string, contentType: string): GraphiqlAsset {
  return { path, file, contentType, size: statSync(file).size };
}

/** Asset URLs name their version, so a browser may keep a file for a year without asking again. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The headers of one file's answer, on every host. */
export function assetHeaders(asset: GraphiqlAsset): Record<string, string> {
  return {
    'content-type': asset.contentType,
    'content-length': String(asset.size),
    'cache-control': ASSET_CACHE,
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'same-origin',
  };
}

/** Resolves every file once, at start: a missing package fails the start, not a request. */
export function graphiqlAssets(): GraphiqlAssets {
  const scripts = [
    packageAsset('react', 'umd/react.production.min.js', JAVASCRIPT),
    packageAsset('react-dom', 'umd/react-dom.production.min.js', JAVASCRIPT),
    packageAsset('graphiql', 'graphiql.min.js', JAVASCRIPT),
    ownAsset('graphiql-start.js', JAVASCRIPT),
  ];
  const styles = [packageAsset('graphiql', 'graphiql.min.css', CSS), ownAsset('graphiql-page.css', CSS)];
  return { scripts, styles, byPath: new Map([...scripts, ...styles].map((item) => [item.path, item])) };
}
