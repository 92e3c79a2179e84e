import { type Static, Type } from '@sinclair/typebox';
import { CREDENTIAL_ID_MAX_BYTES, PASSKEY_NAME_MAX } from '../../identity/passkeys.ts';

/**
 * The request bodies of the passkey routes (docs/reference/http.md): WebAuthn's JSON forms of a
 * credential (`RegistrationResponseJSON`, `AuthenticationResponseJSON`), bounded so that nothing
 * larger than a real authenticator sends reaches the verifier. Members a newer browser adds
 * inside a credential are let through for the verifier to ignore.
 */

const base64url = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+$' });

/** The longest credential id in base64url: 1,023 bytes (WebAuthn), 1,364 characters. */
export const CREDENTIAL_ID_MAX_CHARS = Math.ceil((CREDENTIAL_ID_MAX_BYTES * 4) / 3);

/** A credential id, base64url without padding. */
export const CredentialId = base64url(CREDENTIAL_ID_MAX_CHARS);

/** A passkey's name: 1 to 64 characters, no control characters, not blank. */
export const PasskeyName = Type.String({
  minLength: 1,
  maxLength: PASSKEY_NAME_MAX,
  pattern: '^[^\\x00-\\x1f\\x7f]*[^\\s\\x00-\\x1f\\x7f][^\\x00-\\x1f\\x7f]*$',
});

const Transports = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 16 });
const ExtensionResults = Type.Object({}, { additionalProperties: true });

const RegistrationResponse = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: base64url(8192),
        attestationObject: base64url(65_536),
        transports: Type.Optional(Transports),
        authenticatorData: Type.Optional(base64url(65_536)),
        publicKey: Type.Optional(base64url(8192)),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: ExtensionResults,
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: true },
);

const AuthenticationResponse = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: base64url(8192),
        authenticatorData: base64url(65_536),
        signature: base64url(2048),
        userHandle: Type.Optional(base64url(128)),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: ExtensionResults,
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: true },
);

export const RegistrationOptionsRequest = Type.Object({ name: Type.Optional(PasskeyName) }, { additionalProperties: false });
export type RegistrationOptionsRequest = Static<typeof RegistrationOptionsRequest>;

export const PasskeyRegistration = Type.Object({ response: RegistrationResponse, name: Type.Optional(PasskeyName) }, { additionalProperties: false });
export type PasskeyRegistration = Static<typeof PasskeyRegistration>;

export const PasskeyRename = Type.Object({ name: PasskeyName }, { additionalProperties: false });
export type PasskeyRename = Static<typeof PasskeyRename>;

export const PasskeyParams = Type.Object({ id: CredentialId });
export type PasskeyParams = Static<typeof PasskeyParams>;

export const PasskeyLogin = Type.Object(
  { response: AuthenticationResponse, rememberMe: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type PasskeyLogin = Static<typeof PasskeyLogin>;
