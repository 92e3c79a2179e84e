/**
 * A WebAuthn authenticator in software, for JSON-level tests of the passkey routes: a P-256 key
 * (node:crypto), authenticator data and attestation objects in CBOR (tiny-cbor, the encoder
 * @simplewebauthn/server decodes with), responses in the
 * JSON forms browsers send. Every part a relying party checks can be chosen per call: the origin,
 * the RP ID (its hash), the flags UP/UV/BE/BS, the signature counter, the challenge, the user
 * handle, so that a test can make each check fail on its own.
 *
 *   const authenticator = new SoftwareAuthenticator();
 *   const registration = authenticator.register(creationOptions, { origin: 'http://localhost:3000' });
 *   const assertion = authenticator.assert(requestOptions, { origin: 'http://localhost:3000' });
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { type CBORType, encodeCBOR } from '@levischuck/tiny-cbor';

/** Authenticator-data flags (WebAuthn §6.1). */
const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

export interface Flags {
  /** User present. @default true */
  readonly up?: boolean;
  /** User verified. @default true */
  readonly uv?: boolean;
  /** Backup eligible. @default the authenticator's */
  readonly be?: boolean;
  /** Backed up. @default the authenticator's */
  readonly bs?: boolean;
}

export interface CeremonyOverrides extends Flags {
  /** The origin the "browser" puts in clientDataJSON. */
  readonly origin: string;
  /** The RP ID whose hash goes into the authenticator data. @default the options' RP ID */
  readonly rpId?: string;
  /** The challenge signed over. @default the options' */
  readonly challenge?: string;
  /** clientDataJSON's `type`. @default webauthn.create / webauthn.get */
  readonly type?: string;
}

export interface AssertionOverrides extends CeremonyOverrides {
  /** The signature counter to report. @default one more than the last (or 0 with `zeroCounter`) */
  readonly counter?: number;
  /** The user handle to send; null sends none. @default the one given at registration */
  readonly userHandle?: string | null;
}

export interface RegistrationOverrides extends CeremonyOverrides {
  /** The `id` and `rawId` the response names. @default the attested credential id */
  readonly id?: string;
}

/** What an attestation statement signs over or names, for statements made outside (test/helpers/attestation-statements.ts). */
export interface RegistrationParts {
  readonly authData: Buffer;
  readonly clientDataHash: Buffer;
  readonly rpIdHash: Buffer;
  readonly credentialId: Buffer;
  readonly publicKey: KeyObject;
  readonly privateKey: KeyObject;
}

/** An attestation statement and its format, as the attestation object carries them. */
export interface AttestationStatement {
  readonly fmt: string;
  readonly attStmt: Map<string, CBORType>;
}

interface CreationOptions {
  readonly challenge: string;
  readonly rp: { readonly id?: string };
  readonly user: { readonly id: string };
}

interface RequestOptions {
  readonly challenge: string;
  readonly rpId?: string;
}

export class SoftwareAuthenticator {
  readonly credentialId: string;
  /** The user handle the registration options gave, base64url. */
  userHandle: string | null = null;
  /** The last counter reported. */
  counter: number;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly zeroCounter: boolean;
  private readonly backupEligible: boolean;
  private readonly backedUp: boolean;

  constructor(options: { zeroCounter?: boolean; backupEligible?: boolean; backedUp?: boolean; keys?: { privateKey: KeyObject; publicKey: KeyObject }; credentialId?: string } = {}) {
    const keys = options.keys ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = keys.privateKey;
    this.publicKey = keys.publicKey;
    this.credentialId = options.credentialId ?? randomBytes(16).toString('base64url');
    this.zeroCounter = options.zeroCounter ?? false;
    this.backupEligible = options.backupEligible ?? false;
    this.backedUp = options.backedUp ?? false;
    this.counter = 0;
  }

  /** Another authenticator with the same key, credential and counter: what a cloned key looks like. */
  clone(): SoftwareAuthenticator {
    const twin = new SoftwareAuthenticator({
      keys: { privateKey: this.privateKey, publicKey: this.publicKey },
      credentialId: this.credentialId,
      zeroCounter: this.zeroCounter,
      backupEligible: this.backupEligible,
      backedUp: this.backedUp,
    });
    twin.counter = this.counter;
    twin.userHandle = this.userHandle;
    return twin;
  }

  /** A `RegistrationResponseJSON` with attestation "none", for these creation options. */
  register(options: CreationOptions, overrides: RegistrationOverrides) {
    return this.registrationResponse(this.registrationParts(options, overrides), { fmt: 'none', attStmt: new Map() }, overrides);
  }

  /** A `RegistrationResponseJSON` carrying the statement `attest` makes over this registration. */
  async registerAttested(options: CreationOptions, overrides: RegistrationOverrides, attest: (parts: RegistrationParts) => Promise<AttestationStatement>) {
    const parts = this.registrationParts(options, overrides);
    return this.registrationResponse(parts, await attest(parts), overrides);
  }

  private registrationParts(options: CreationOptions, overrides: RegistrationOverrides): RegistrationParts & { clientDataJSON: Buffer } {
    this.userHandle = options.user.id;
    const rpId = overrides.rpId ?? options.rp.id!;
    const clientDataJSON = clientData(overrides.type ?? 'webauthn.create', overrides.challenge ?? options.challenge, overrides.origin);
    const credentialId = Buffer.from(this.credentialId, 'base64url');
    const attestedCredentialData = Buffer.concat([Buffer.alloc(16), u16(credentialId.length), credentialId, this.coseKey()]);
    const authData = Buffer.concat([sha256(rpId), Buffer.of(this.flags(overrides) | FLAG.AT), u32(this.zeroCounter ? 0 : this.counter), attestedCredentialData]);
    return { clientDataJSON, authData, clientDataHash: sha256(clientDataJSON), rpIdHash: sha256(rpId), credentialId, publicKey: this.publicKey, privateKey: this.privateKey };
  }

  private registrationResponse(parts: RegistrationParts & { clientDataJSON: Buffer }, statement: AttestationStatement, overrides: RegistrationOverrides) {
    const attestationObject = encodeCBOR(
      new Map<string, CBORType>([
        ['fmt', statement.fmt],
        ['attStmt', statement.attStmt],
        ['authData', new Uint8Array(parts.authData)],
      ]),
    );
    const id = overrides.id ?? this.credentialId;
    return {
      id,
      rawId: id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: parts.clientDataJSON.toString('base64url'),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** An `AuthenticationResponseJSON` signed over these request options; the counter moves on unless told otherwise. */
  assert(options: RequestOptions, overrides: AssertionOverrides) {
    const rpId = overrides.rpId ?? options.rpId!;
    const counter = overrides.counter ?? (this.zeroCounter ? 0 : this.counter + 1);
    this.counter = counter;
    const clientDataJSON = clientData(overrides.type ?? 'webauthn.get', overrides.challenge ?? options.challenge, overrides.origin);
    const authenticatorData = Buffer.concat([sha256(rpId), Buffer.of(this.flags(overrides)), u32(counter)]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    const userHandle = overrides.userHandle === undefined ? this.userHandle : overrides.userHandle;
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private flags(overrides: Flags): number {
    let flags = 0;
    if (overrides.up ?? true) flags |= FLAG.UP;
    if (overrides.uv ?? true) flags |= FLAG.UV;
    if (overrides.be ?? this.backupEligible) flags |= FLAG.BE;
    if (overrides.bs ?? this.backedUp) flags |= FLAG.BS;
    return flags;
  }

  /** The public key as COSE_Key: EC2, ES256, P-256. */
  private coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    return encodeCBOR(
      new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
      ]),
    );
  }
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function sha256(data: string | Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}
