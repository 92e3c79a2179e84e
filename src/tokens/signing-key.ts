import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { SigningKeyRecord } from '../store/ports.ts';
import type { Sealer } from '../security/crypto/sealer.ts';

/**
 * Access tokens are signed with ES256 (P-256): supported by every JWT library, so other
 * services can verify from the JWKS alone (docs/decisions/0002-signing-algorithm.md).
 */
export const SIGNING_ALGORITHM = 'ES256';

/** A signing key imported once, with the public JWK it publishes. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly createdAt: number;
  readonly publicJwk: JWK;
  readonly verifyKey: CryptoKey;
  /** Imported on first use: only the current key ever signs. */
  signKey(): Promise<CryptoKey>;
}

/** A fresh key pair, its kid the RFC 7638 thumbprint, the private half sealed. */
export async function generateSigningKeyRecord(sealer: Sealer, createdAt: number): Promise<SigningKeyRecord> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  return {
    kid,
    alg: SIGNING_ALGORITHM,
    publicJwk: JSON.stringify({ ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' }),
    privateJwk: sealer.seal(JSON.stringify(privateJwk)),
    createdAt,
    revokedAt: null,
  };
}

export async function importSigningKey(record: SigningKeyRecord, sealer: Sealer): Promise<SigningKey> {
  const publicJwk = JSON.parse(record.publicJwk) as JWK;
  const verifyKey = (await importJWK(publicJwk, record.alg)) as CryptoKey;
  let signKey: Promise<CryptoKey> | undefined;
  return {
    kid: record.kid,
    alg: record.alg,
    createdAt: record.createdAt,
    publicJwk,
    verifyKey,
    signKey: () => (signKey ??= importJWK(JSON.parse(sealer.unseal(record.privateJwk)) as JWK, record.alg) as Promise<CryptoKey>),
  };
}
