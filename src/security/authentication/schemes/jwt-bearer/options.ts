import { createPublicKey, KeyObject } from 'node:crypto';
import type { JWK, JWTPayload } from 'jose';
import type { Clock } from '../../../../platform/clock.ts';

/**
 * Where a claim of the principal comes from: a claim name (tried as it is, then as a dotted path
 * into objects, e.g. Keycloak's `realm_access.roles`), several such names (their values
 * together), or a function of the verified payload returning a string or strings.
 */
export type ClaimSource = string | readonly string[] | ((payload: JWTPayload) => unknown);

/** A public key: a JWK, a PEM (SPKI or certificate), or a Node `KeyObject`. */
export type PublicKeyInput = JWK | string | KeyObject;

/** The options of a bearer scheme over an external issuer's JWT access tokens. */
export interface JwtBearerOptions {
  /** The scheme's name; `Bearer` replaces Gatehouse's own bearer scheme. @default 'Bearer' */
  readonly scheme?: string;

  // Exactly one key source.
  /** The issuer's URL: its `/.well-known/openid-configuration` gives the issuer and the JWKS (ASP.NET's `Authority`). */
  readonly authority?: string | URL;
  /** The issuer's JWKS document. */
  readonly jwksUrl?: string | URL;
  /** One public key of the issuer. */
  readonly publicKey?: PublicKeyInput;
  /** A secret shared with the issuer (HS256, HS384, HS512 only); at least 32 bytes. */
  readonly secret?: string | Uint8Array;

  /** The `iss` a token must carry; required unless it comes from the authority's discovery document. */
  readonly issuer?: string | readonly string[];
  /** The `aud` a token must carry (one of them, for a list). */
  readonly audience: string | readonly string[];
  /** The `alg`s accepted. @default RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519; HS256 for a secret */
  readonly algorithms?: readonly string[];
  /** The `typ` header a token must carry (e.g. `at+jwt`, RFC 9068); any when unset. */
  readonly tokenType?: string;
  /** Allowed drift of `exp`, `nbf` and `iat` between machines. @default 30 */
  readonly clockSkewSeconds?: number;

  /** The role claims. @default ['role', 'roles'] */
  readonly roleClaim?: ClaimSource;
  /** The name claim (`Identity.name`). @default 'name' */
  readonly nameClaim?: ClaimSource;
  /** A last check of a verified token's payload; false (or a throw) refuses the token. */
  readonly validate?: (payload: JWTPayload) => boolean | Promise<boolean>;

  /** How long the discovery document is used before it is read again. @default 43200 (12 hours) */
  readonly metadataRefreshSeconds?: number;
  /** How long after a failed read of the discovery document it is tried again. @default 10 */
  readonly metadataRetrySeconds?: number;
  /** How long a JWKS is used before it is fetched again. @default 600 */
  readonly jwksMaxAgeSeconds?: number;
  /** After a fetch of the JWKS, an unknown `kid` fetches it again only once this has passed. @default 30 */
  readonly jwksCooldownSeconds?: number;
  /** How long a request to the issuer may take. @default 5 */
  readonly timeoutSeconds?: number;
  /** Plain `http` for a non-loopback authority or JWKS (loopback may always use it). @default false */
  readonly allowHttp?: boolean;
  /** Verified tokens remembered (each until it expires); 0 remembers none. @default 10000 */
  readonly cacheSize?: number;
  /** Told why the issuer's metadata or keys could not be had (the caller only learns they are unavailable). */
  readonly onError?: (error: Error) => void;
  readonly clock?: Clock;
}

export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
];
/** The bytes an HMAC key needs at least, per algorithm (RFC 7518 section 3.2: the hash's size). */
const HMAC_KEY_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

/** The key source, checked. */
export type KeySourceOptions =
  | { readonly kind: 'authority'; readonly authority: URL }
  | { readonly kind: 'jwks'; readonly jwksUrl: URL }
  | { readonly kind: 'publicKey'; readonly publicKey: KeyObject }
  | { readonly kind: 'secret'; readonly secret: Uint8Array };

/** The options with every default applied and every rule checked. */
export interface ResolvedJwtBearerOptions {
  readonly scheme: string;
  readonly keySource: KeySourceOptions;
  readonly issuer: readonly string[] | undefined;
  readonly audience: readonly string[];
  readonly algorithms: readonly string[];
  readonly tokenType: string | undefined;
  readonly clockSkewSeconds: number;
  readonly roleClaim: ClaimSource;
  readonly nameClaim: ClaimSource;
  readonly validate: ((payload: JWTPayload) => boolean | Promise<boolean>) | undefined;
  readonly metadataRefreshMs: number;
  readonly metadataRetryMs: number;
  readonly jwksMaxAgeMs: number;
  readonly jwksCooldownMs: number;
  readonly timeoutMs: number;
  readonly allowHttp: boolean;
  readonly cacheSize: number;
  readonly onError: (error: Error) => void;
  readonly clock: Clock | undefined;
}

/** A configuration mistake, found when the scheme is made. */
export class JwtBearerOptionsError extends Error {
  override readonly name = 'JwtBearerOptionsError';
}

function invalid(message: string): never {
  throw new JwtBearerOptionsError(`Bearer scheme options: ${message}`);
}

export function resolveOptions(options: JwtBearerOptions): ResolvedJwtBearerOptions {
  if (typeof options !== 'object' || options === null) invalid('an options object is required.');
  const scheme = options.scheme ?? 'Bearer';
  if (typeof scheme !== 'string' || !/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(scheme)) invalid('`scheme` must be a name of letters, digits, "_", "." or "-".');
  const allowHttp = options.allowHttp ?? false;
  const keySource = keySourceOf(options, allowHttp);
  const algorithms = algorithmsFor(keySource, options.algorithms);
  if (keySource.kind === 'publicKey') checkKeyFitsAlgorithms(keySource.publicKey, algorithms);
  const issuer = listOf(options.issuer, 'issuer');
  if (issuer === undefined && keySource.kind !== 'authority') invalid('`issuer` is required unless it comes from `authority`.');
  const audience = listOf(options.audience, 'audience');
  if (audience === undefined) invalid('`audience` is required: the API the tokens must be issued for.');
  if (options.tokenType !== undefined && (typeof options.tokenType !== 'string' || options.tokenType === '')) invalid('`tokenType` must be a non-empty string.');
  if (options.validate !== undefined && typeof options.validate !== 'function') invalid('`validate` must be a function.');
  if (options.onError !== undefined && typeof options.onError !== 'function') invalid('`onError` must be a function.');
  return {
    scheme,
    keySource,
    issuer,
    audience,
    algorithms,
    tokenType: options.tokenType,
    clockSkewSeconds: seconds(options.clockSkewSeconds, 30, 'clockSkewSeconds', 0),
    roleClaim: claimSource(options.roleClaim, ['role', 'roles'], 'roleClaim'),
    nameClaim: claimSource(options.nameClaim, 'name', 'nameClaim'),
    validate: options.validate,
    metadataRefreshMs: seconds(options.metadataRefreshSeconds, 43_200, 'metadataRefreshSeconds', 1) * 1000,
    metadataRetryMs: seconds(options.metadataRetrySeconds, 10, 'metadataRetrySeconds', 0) * 1000,
    jwksMaxAgeMs: seconds(options.jwksMaxAgeSeconds, 600, 'jwksMaxAgeSeconds', 1) * 1000,
    jwksCooldownMs: seconds(options.jwksCooldownSeconds, 30, 'jwksCooldownSeconds', 0) * 1000,
    timeoutMs: Math.round(seconds(options.timeoutSeconds, 5, 'timeoutSeconds', 0.001) * 1000),
    allowHttp,
    cacheSize: count(options.cacheSize, 10_000, 'cacheSize'),
    onError: options.onError ?? (() => undefined),
    clock: options.clock,
  };
}

function keySourceOf(options: JwtBearerOptions, allowHttp: boolean): KeySourceOptions {
  const given = (['authority', 'jwksUrl', 'publicKey', 'secret'] as const).filter((name) => options[name] !== undefined);
  if (given.length !== 1) invalid(`exactly one of \`authority\`, \`jwksUrl\`, \`publicKey\`, \`secret\` is required (${given.length === 0 ? 'none' : given.join(', ')} given).`);
  if (options.authority !== undefined) return { kind: 'authority', authority: remoteUrl(options.authority, 'authority', allowHttp) };
  if (options.jwksUrl !== undefined) return { kind: 'jwks', jwksUrl: remoteUrl(options.jwksUrl, 'jwksUrl', allowHttp) };
  if (options.publicKey !== undefined) return { kind: 'publicKey', publicKey: publicKeyOf(options.publicKey) };
  return { kind: 'secret', secret: secretOf(options.secret!) };
}

/** An issuer's URL; plain http only on loopback (or when allowed), since keys fetched over it could be swapped. */
export function remoteUrl(value: string | URL, name: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return invalid(`\`${name}\` must be an absolute URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') invalid(`\`${name}\` must be an http(s) URL.`);
  if (url.protocol === 'http:' && !allowHttp && !isLoopback(url)) invalid(`\`${name}\` must use https (or set \`allowHttp\`).`);
  if (url.username !== '' || url.password !== '') invalid(`\`${name}\` must not carry credentials.`);
  return url;
}

function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
}

/** A public key in any of its forms (a private key gives its public half). */
function publicKeyOf(input: PublicKeyInput): KeyObject {
  if (input instanceof KeyObject) {
    if (input.type === 'secret') invalid('`publicKey` is a secret key: use `secret` for a shared secret.');
    return input.type === 'public' ? input : createPublicKey(input);
  }
  if (typeof input === 'object' && input !== null && input.kty === 'oct') invalid('`publicKey` is a symmetric JWK: use `secret` for a shared secret.');
  try {
    return typeof input === 'string' ? createPublicKey(input) : createPublicKey({ key: { ...input } as never, format: 'jwk' });
  } catch {
    return invalid('`publicKey` is not a public key (a JWK, a PEM or a KeyObject).');
  }
}

function secretOf(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array)) invalid('`secret` must be a string or bytes.');
  if (bytes.byteLength < 32) invalid('`secret` must be at least 32 bytes.');
  return new Uint8Array(bytes);
}

function algorithmsFor(source: KeySourceOptions, configured: readonly string[] | undefined): readonly string[] {
  const symmetric = source.kind === 'secret';
  const algorithms = configured ?? (symmetric ? ['HS256'] : ASYMMETRIC_ALGORITHMS);
  if (!Array.isArray(algorithms) || algorithms.length === 0) invalid('`algorithms` must list at least one algorithm.');
  for (const alg of algorithms) {
    if (typeof alg !== 'string' || alg.toLowerCase() === 'none') invalid('`algorithms` must not include "none".');
    if (symmetric && !(alg in HMAC_KEY_BYTES)) invalid(`with a \`secret\`, only HS256, HS384 and HS512 are allowed (not ${alg}).`);
    if (!symmetric && !ASYMMETRIC_ALGORITHMS.includes(alg)) invalid(`with a public key source, only ${ASYMMETRIC_ALGORITHMS.join(', ')} are allowed (not ${alg}).`);
    if (symmetric && source.secret.byteLength < HMAC_KEY_BYTES[alg]!) invalid(`${alg} needs a \`secret\` of at least ${HMAC_KEY_BYTES[alg]} bytes.`);
  }
  return [...new Set(algorithms)];
}

/** The algorithms a single public key can verify; a list with none of them would refuse every token. */
function checkKeyFitsAlgorithms(key: KeyObject, algorithms: readonly string[]): void {
  const type = key.asymmetricKeyType;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const fits = (alg: string): boolean => {
    if (type === 'rsa') return alg.startsWith('RS') || alg.startsWith('PS');
    if (type === 'rsa-pss') return alg.startsWith('PS');
    if (type === 'ec') return { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' }[alg] === curve;
    if (type === 'ed25519') return alg === 'EdDSA' || alg === 'Ed25519';
    return false;
  };
  if (!algorithms.some(fits)) invalid(`\`publicKey\` (${type ?? 'unknown'}) fits none of the allowed algorithms (${algorithms.join(', ')}).`);
}

function listOf(value: string | readonly string[] | undefined, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.some((item) => typeof item !== 'string' || item === '')) {
    invalid(`\`${name}\` must be a non-empty string or a non-empty list of them.`);
  }
  return [...list];
}

function claimSource(value: ClaimSource | undefined, fallback: ClaimSource, name: string): ClaimSource {
  if (value === undefined) return fallback;
  const valid =
    typeof value === 'function' ||
    (typeof value === 'string' && value !== '') ||
    (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== ''));
  if (!valid) invalid(`\`${name}\` must be a claim name, a list of claim names, or a function.`);
  return value;
}

function seconds(value: number | undefined, fallback: number, name: string, minimum: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) invalid(`\`${name}\` must be a number of seconds, at least ${minimum}.`);
  return value;
}

function count(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) invalid(`\`${name}\` must be a whole number, 0 or more.`);
  return value;
}
