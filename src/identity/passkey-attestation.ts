/**
 * The part of a registration's attestation object Gatehouse uses: the authenticator data (RP ID
 * hash, flags, counter, the attested credential id and public key). Gatehouse asks for
 * `attestation: "none"` and trusts no authenticator model, so whatever statement an authenticator
 * or a forger sends along (`packed`, `tpm`, `android-key`, … with an `x5c` chain) is dropped
 * unread, as WebAuthn lets a client do for "none" (§5.4.7): the verifier then never walks a
 * certificate chain, and never fetches the CRLs its certificates name. See
 * docs/decisions/0063-passkey-attestation-none.md.
 */

/** CBOR as the WebAuthn library decodes and encodes it (its `isoCBOR`), so both read the same bytes. */
export interface AttestationCbor {
  decodeFirst<T>(input: Uint8Array<ArrayBuffer>): T;
  encode(input: Map<string, unknown>): Uint8Array;
}

/**
 * The attestation object (base64url) with its statement replaced by none's: `fmt: "none"`,
 * `attStmt: {}`, the authenticator data unchanged. Null when it is no attestation object (not a
 * CBOR map, or no authenticator data), for the caller to refuse.
 */
export function withoutAttestationStatement(attestationObject: string, cbor: AttestationCbor): string | null {
  let decoded: unknown;
  try {
    decoded = cbor.decodeFirst(new Uint8Array(Buffer.from(attestationObject, 'base64url')));
  } catch {
    return null;
  }
  const authData = decoded instanceof Map ? (decoded as Map<unknown, unknown>).get('authData') : undefined;
  if (!(authData instanceof Uint8Array)) return null;
  const none = new Map<string, unknown>([
    ['fmt', 'none'],
    ['attStmt', new Map()],
    ['authData', authData],
  ]);
  return Buffer.from(cbor.encode(none)).toString('base64url');
}
