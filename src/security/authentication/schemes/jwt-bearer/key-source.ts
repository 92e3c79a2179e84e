import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import { OpenIdConfiguration, type OpenIdMetadata } from './openid-configuration.ts';
import type { ResolvedJwtBearerOptions } from './options.ts';
import { RemoteKeySet } from './remote-key-set.ts';

/** What a token is verified with: the issuers it may name and its key (or the function finding it by `kid`). */
export interface VerificationKeys {
  readonly issuer: readonly string[];
  readonly key: KeyObject | Uint8Array | JWTVerifyGetKey;
}

/** Gives the keys for the next verification; throws `IssuerMetadataError` when they cannot be had. */
export interface KeySource {
  keys(): Promise<VerificationKeys> | VerificationKeys;
}

export function keySourceFor(options: ResolvedJwtBearerOptions): KeySource {
  const { keySource } = options;
  switch (keySource.kind) {
    case 'publicKey':
      return fixedKeys(options.issuer!, keySource.publicKey);
    case 'secret':
      return fixedKeys(options.issuer!, keySource.secret);
    case 'jwks':
      return fixedKeys(options.issuer!, remoteKeySet(keySource.jwksUrl, options));
    case 'authority':
      return discoveredKeys(new OpenIdConfiguration(keySource.authority, {
        refreshMs: options.metadataRefreshMs,
        retryMs: options.metadataRetryMs,
        timeoutMs: options.timeoutMs,
        allowHttp: options.allowHttp,
      }), options);
  }
}

function fixedKeys(issuer: readonly string[], key: VerificationKeys['key']): KeySource {
  const keys: VerificationKeys = { issuer, key };
  return { keys: () => keys };
}

/**
 * The issuer and key set of the authority's current discovery document. A configured `issuer`
 * wins over the document's (an issuer known by several names); the key set is made anew only
 * when the document moves its `jwks_uri`.
 */
function discoveredKeys(configuration: OpenIdConfiguration, options: ResolvedJwtBearerOptions): KeySource {
  let current: { readonly document: OpenIdMetadata; readonly keys: VerificationKeys } | undefined;
  return {
    async keys() {
      const document = await configuration.metadata();
      if (current?.document !== document) {
        const sameKeySet = current !== undefined && current.document.jwksUri.href === document.jwksUri.href;
        const key = sameKeySet ? current!.keys.key : remoteKeySet(document.jwksUri, options);
        current = { document, keys: { issuer: options.issuer ?? [document.issuer], key } };
      }
      return current.keys;
    },
  };
}

/**
 * The issuer's key set (`RemoteKeySet`): fetched at first use, again after `jwksMaxAgeMs`, and again
 * for a `kid` it does not know, but not within `jwksCooldownMs` of its last fetch; one fetch at a
 * time, and none within a backoff after a failure, so neither made-up `kid`s nor an issuer that
 * fails can make the service flood it. A fetch that fails (unreachable, not 200, not a JWKS, too
 * slow) becomes an `IssuerMetadataError`, told apart from the token's own faults.
 */
function remoteKeySet(url: URL, options: ResolvedJwtBearerOptions): RemoteKeySetKey {
  const keySet = new RemoteKeySet(url, { maxAgeMs: options.jwksMaxAgeMs, cooldownMs: options.jwksCooldownMs, timeoutMs: options.timeoutMs });
  return Object.assign(keySet.getKey, { load: () => keySet.load() });
}

/** Fetches the key set now when the keys come from one (for a start-up check). */
export async function loadKeys(keys: VerificationKeys): Promise<void> {
  if (typeof keys.key === 'function' && 'load' in keys.key) await (keys.key as RemoteKeySetKey).load();
}

type RemoteKeySetKey = JWTVerifyGetKey & { load(): Promise<void> };

/** Errors about the token's header (no key for its `kid`, several, or an unusable one), not about the fetch. */
export function isTokenFault(error: unknown): boolean {
  return (
    error instanceof joseErrors.JWKSNoMatchingKey ||
    error instanceof joseErrors.JWKSMultipleMatchingKeys ||
    error instanceof joseErrors.JOSENotSupported ||
    error instanceof joseErrors.JOSEAlgNotAllowed
  );
}
