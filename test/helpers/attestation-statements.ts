/**
 * Attestation statements of every WebAuthn format, each carrying an `x5c` chain of the sender's
 * own making: a root and a leaf (the credential's key) whose CRL distribution points and
 * authority information access name the URLs given — what an attacker registers so that a relying
 * party walking the chain fetches from where the attacker likes. Each statement is as real as its
 * format asks before a verifier reaches the chain (the Android key description carries the
 * client data hash, packed and fido-u2f are signed by the leaf's key); the certificates are made
 * with @peculiar/x509 (the X.509 library of @simplewebauthn/server) over node's WebCrypto.
 *
 *   const response = await authenticator.registerAttested(options, { origin }, (parts) =>
 *     attestationStatement('android-key', parts, { crl: [url], aia: [url] }));
 */
// @peculiar/x509's dependency injection needs the Reflect metadata API before it loads.
import 'reflect-metadata';
import { createHash, generateKeyPairSync, type KeyObject, sign, webcrypto } from 'node:crypto';
import type { CBORType } from '@levischuck/tiny-cbor';
import { KeyDescription } from '@peculiar/asn1-android';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import * as x509 from '@peculiar/x509';
import type { AttestationStatement, RegistrationParts } from './software-authenticator.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** The formats of the WebAuthn registry a statement may name (WebAuthn L3 §8). */
export const ATTESTATION_FORMATS = ['packed', 'tpm', 'android-key', 'android-safetynet', 'apple', 'fido-u2f'] as const;
export type AttestationFormat = (typeof ATTESTATION_FORMATS)[number];

/** Where the chain's certificates send a verifier: CRL distribution points, and AIA (CA issuers, OCSP). */
export interface ChainUrls {
  readonly crl: readonly string[];
  readonly aia: readonly string[];
}

const ES256 = -7;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const ANDROID_KEY_DESCRIPTION = '1.3.6.1.4.1.11129.2.1.17';

/** A statement of `format` over this registration, with a chain naming `urls`. */
export async function attestationStatement(format: AttestationFormat, parts: RegistrationParts, urls: ChainUrls): Promise<AttestationStatement> {
  const x5c = await chain(parts, urls, format === 'android-key' ? [keyDescription(parts.clientDataHash)] : []);
  const overAuthData = bytes(sign('sha256', Buffer.concat([parts.authData, parts.clientDataHash]), parts.privateKey));
  switch (format) {
    case 'packed':
    case 'android-key':
      return statement(format, { alg: ES256, sig: overAuthData, x5c });
    case 'tpm':
      return statement(format, { ver: '2.0', alg: ES256, sig: overAuthData, x5c, certInfo: bytes(Buffer.alloc(64, 1)), pubArea: bytes(Buffer.alloc(64, 2)) });
    case 'apple':
      return statement(format, { x5c });
    case 'fido-u2f': {
      const signed = Buffer.concat([Buffer.of(0), parts.rpIdHash, parts.clientDataHash, parts.credentialId, rawPublicKey(parts.publicKey)]);
      return statement(format, { sig: bytes(sign('sha256', signed, parts.privateKey)), x5c });
    }
    case 'android-safetynet':
      return statement(format, { ver: '1', response: bytes(Buffer.from(safetyNetJws(parts, x5c))) });
  }
}

function statement(fmt: string, members: Record<string, CBORType>): AttestationStatement {
  return { fmt, attStmt: new Map(Object.entries(members)) };
}

/** [leaf, root], DER: the leaf holds the credential's public key and is signed by the root. */
async function chain(parts: RegistrationParts, urls: ChainUrls, leafExtensions: x509.Extension[]): Promise<Uint8Array[]> {
  const rootKeys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(Date.now() - 24 * 3600_000);
  const notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const located = (): x509.Extension[] => [
    new x509.CRLDistributionPointsExtension([...urls.crl]),
    new x509.AuthorityInfoAccessExtension({ caIssuers: urls.aia.map(uri), ocsp: urls.aia.map(uri) }),
  ];
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Attestation Root, O=Not A Vendor, C=US',
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
      ...located(),
    ],
  });
  const leafKey = await webcrypto.subtle.importKey('spki', parts.publicKey.export({ type: 'spki', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Attestation Leaf, OU=Authenticator Attestation, O=Not A Vendor, C=US',
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: leafKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [new x509.BasicConstraintsExtension(false), await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey), ...located(), ...leafExtensions],
  });
  return [bytes(Buffer.from(leaf.rawData)), bytes(Buffer.from(root.rawData))];
}

function uri(url: string): x509.GeneralName {
  return new x509.GeneralName('url', url);
}

/** Android's key attestation extension, attesting the client data hash as its challenge. */
function keyDescription(clientDataHash: Buffer): x509.Extension {
  const description = new KeyDescription({ attestationChallenge: new OctetString(new Uint8Array(clientDataHash)) });
  return new x509.Extension(ANDROID_KEY_DESCRIPTION, false, AsnConvert.serialize(description));
}

/** A SafetyNet attestation JWS whose header carries the chain; signed by no one that matters. */
function safetyNetJws(parts: RegistrationParts, x5c: Uint8Array[]): string {
  const nonce = createHash('sha256').update(Buffer.concat([parts.authData, parts.clientDataHash])).digest('base64');
  const header = { alg: 'ES256', x5c: x5c.map((certificate) => Buffer.from(certificate).toString('base64')) };
  const payload = { nonce, timestampMs: Date.now(), apkPackageName: 'com.google.android.gms', ctsProfileMatch: true, basicIntegrity: true };
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signed = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** The uncompressed EC point (0x04 ‖ x ‖ y) fido-u2f signs over. */
function rawPublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.of(4), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

function b64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function bytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer);
}
