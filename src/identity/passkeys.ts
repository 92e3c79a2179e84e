import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit/audit-log.ts';
import type { Clock } from '../platform/clock.ts';
import type { MailMessage, Mailer } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import { importPeer } from '../platform/optional-peers.ts';
import type { Random } from '../platform/random.ts';
import { sha256Hex } from '../security/crypto/digest.ts';
import { type Passkey, type PasskeyChallenge, type PasskeyChallengePurpose, type PasskeyStore, StoreConflictError, type UnitOfWork, type User } from '../store/ports.ts';
import { BUILT_IN_MAILS, type Mails } from './account-mail.ts';
import { type AttestationCbor, withoutAttestationStatement } from './passkey-attestation.ts';
import type { SecurityChanges, SelfServiceChange } from './security-changes.ts';
import type { SignedInSession } from './sessions.ts';

/**
 * A registration or an assertion as browsers send it (WebAuthn's `RegistrationResponseJSON` and
 * `AuthenticationResponseJSON`), checked in full by @simplewebauthn/server. Declared here, as
 * plain JSON, so that Gatehouse's published types do not name that package: it is an optional
 * peer, which an application without passkeys does not install.
 */
export interface PasskeyCredentialJSON {
  readonly id: string;
  readonly rawId: string;
  readonly type: 'public-key';
  readonly response: { readonly clientDataJSON: string; readonly userHandle?: string; readonly [member: string]: unknown };
  readonly clientExtensionResults: Readonly<Record<string, unknown>>;
  readonly authenticatorAttachment?: string;
}

/** A ceremony's options as the browser's credentials API takes them in JSON (WebAuthn's `…OptionsJSON`). */
export type PasskeyOptionsJSON = { readonly challenge: string } & Readonly<Record<string, unknown>>;


/** A ceremony's challenge works once, for five minutes (docs/reference/http.md). */
export const PASSKEY_CHALLENGE_MS = 5 * 60 * 1000;
/** A passkey's name, in code points. */
export const PASSKEY_NAME_MAX = 64;
/** The longest credential id a relying party accepts (WebAuthn L3 §7.1, step 14). */
export const CREDENTIAL_ID_MAX_BYTES = 1023;
/** Passkeys one account may hold: the list and the options' `excludeCredentials` stay small. */
export const PASSKEYS_PER_USER_MAX = 50;
/** Challenges carry 256 random bits. */
const CHALLENGE_BYTES = 32;

export interface PasskeyManagerOptions {
  readonly store: PasskeyStore;
  readonly audit: AuditLog;
  readonly mailer: Mailer;
  /** The notices, in the application's words. @default the built-in ones */
  readonly mails?: Mails;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** `WEBAUTHN_RP_ID`: `rp.id` of the options, and the RP ID hash every response must carry. */
  readonly rpId: string;
  /** The name browsers show for the relying party. */
  readonly rpName: string;
  /** `PUBLIC_URL`'s origin: the one origin a response may come from (CORS origins do not count). */
  readonly origin: string;
  /** A removal ends every session and token of the user but the one that asked. */
  readonly securityChanges: SecurityChanges;
  /** A passkey added or removed commits with its audit event. */
  readonly unitOfWork: UnitOfWork;
}

/** A removal's outcome: removed (with the asking session, re-issued), or refused and nothing changed. */
export type PasskeyRemoval =
  | { readonly outcome: 'removed'; readonly session: SignedInSession | null }
  | { readonly outcome: 'not-found' | 'last-way-in' };

/**
 * Why a registration was refused: each is a 400 naming `response`. `credential-id-too-long`: the
 * attested credential id is over CREDENTIAL_ID_MAX_BYTES; `credential-id-mismatch`: the
 * response's `id` is not the credential id its authenticator data attests.
 */
export class PasskeyRegistrationRefused extends Error {
  constructor(readonly reason: 'challenge' | 'verification' | 'credential-id-too-long' | 'credential-id-mismatch' | 'taken' | 'too-many') {
    super(`The passkey registration was refused (${reason}).`);
    this.name = 'PasskeyRegistrationRefused';
  }
}

/** Why a sign-in assertion was refused; `passkey` is the credential when it is known. */
export type PasskeyRefusal = 'unknown-passkey' | 'spent-challenge' | 'passkey-verification' | 'passkey-counter';

/** What a sign-in assertion proved. */
export type PasskeyAssertion =
  | { readonly kind: 'verified'; readonly passkey: Passkey; readonly userVerified: boolean }
  | { readonly kind: 'refused'; readonly reason: PasskeyRefusal; readonly passkey: Passkey | null };

/**
 * Passkeys (WebAuthn) as a way into an account (docs/passkeys.md): the options of the two
 * ceremonies, with their single-use challenges kept (hashed) in the store, verification of
 * registrations and assertions by @simplewebauthn/server against `WEBAUTHN_RP_ID` and the
 * `PUBLIC_URL` origin, and the owner's passkeys. What a verified assertion then signs in is
 * SignInManager's call, by the same rules as a password.
 */
export class PasskeyManager {
  constructor(private readonly options: PasskeyManagerOptions) {}

  /**
   * `PublicKeyCredentialCreationOptionsJSON` for a new passkey of `user`: a discoverable
   * credential (resident key required), user verification preferred, the user's passkeys
   * excluded. Only the session (or caller) named by `binding` may answer it.
   */
  async registrationOptions(user: User, binding: string, name: string | null): Promise<PasskeyOptionsJSON> {
    const { store, rpId, rpName } = this.options;
    const existing = await store.listForUser(user.id);
    if (existing.length >= PASSKEYS_PER_USER_MAX) throw new PasskeyRegistrationRefused('too-many');
    const { generateRegistrationOptions } = await webauthn();
    const label = user.userName ?? user.email;
    const options = await generateRegistrationOptions({
      rpName,
      rpID: rpId,
      // The user handle: the account's id, which never changes and is never reused.
      userID: new Uint8Array(Buffer.from(String(user.id))),
      userName: label,
      userDisplayName: label,
      challenge: new Uint8Array(this.options.random.bytes(CHALLENGE_BYTES)),
      timeout: PASSKEY_CHALLENGE_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as never })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.issue(options.challenge, 'registration', { userId: user.id, binding, name });
    return options as unknown as PasskeyOptionsJSON;
  }

  /**
   * Verifies a registration response to a challenge of this user and binding (spent by this
   * call, whatever its outcome) and stores the passkey; the owner gets a notice mail.
   */
  async register(user: User, binding: string, response: PasskeyCredentialJSON, name: string | null, context: { ip?: string | null } = {}): Promise<Passkey> {
    const { store, clock, audit } = this.options;
    const challenge = challengeOf(response.response.clientDataJSON);
    const issued = challenge === null ? null : await this.spend(challenge, 'registration');
    if (challenge === null || issued === null || issued.userId !== user.id || issued.binding !== binding) throw new PasskeyRegistrationRefused('challenge');
    const { verifyRegistrationResponse } = await webauthn();
    // The statement goes unread (passkey-attestation.ts): nothing the request carries makes the
    // verifier walk a certificate chain or fetch what the chain names.
    const attestationObject = withoutAttestationStatement(String(response.response['attestationObject']), await attestationCbor());
    if (attestationObject === null) {
      this.options.logger.info({ reason: 'no attestation object' }, 'a passkey registration failed verification');
      throw new PasskeyRegistrationRefused('verification');
    }
    const asNone = { ...response, response: { ...response.response, attestationObject } };
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: asNone as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.options.origin,
        expectedRPID: this.options.rpId,
        // Preferred, not required: a passkey without user verification is one factor (SignInManager).
        requireUserVerification: false,
      });
    } catch (error) {
      this.options.logger.info({ reason: reasonOf(error) }, 'a passkey registration failed verification');
      throw new PasskeyRegistrationRefused('verification');
    }
    const info = verified.registrationInfo;
    if (!verified.verified || info === undefined) throw new PasskeyRegistrationRefused('verification');
    // The owner renames and removes a passkey by the id its response named: the id the key signs under.
    if (Buffer.from(info.credential.id, 'base64url').length > CREDENTIAL_ID_MAX_BYTES) throw new PasskeyRegistrationRefused('credential-id-too-long');
    if (response.id !== info.credential.id || response.rawId !== info.credential.id) throw new PasskeyRegistrationRefused('credential-id-mismatch');
    const existing = await store.listForUser(user.id);
    if (existing.length >= PASSKEYS_PER_USER_MAX) throw new PasskeyRegistrationRefused('too-many');
    let passkey: Passkey;
    try {
      passkey = await this.options.unitOfWork.atomically(async () => {
        const added = await store.add({
          userId: user.id,
          credentialId: info.credential.id,
          publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter,
          transports: [...(info.credential.transports ?? (response as unknown as RegistrationResponseJSON).response.transports ?? [])],
          backedUp: info.credentialBackedUp,
          deviceType: info.credentialDeviceType,
          name: name ?? issued.name ?? `Passkey ${existing.length + 1}`,
          createdAt: clock.now(),
        });
        await audit.record('passkey.added', { userId: user.id, ip: context.ip, detail: { credentialId: added.credentialId, name: added.name } });
        return added;
      });
    } catch (error) {
      if (error instanceof StoreConflictError) throw new PasskeyRegistrationRefused('taken');
      throw error;
    }
    await this.notify((mails) => mails.passkeyAdded(user, passkey.name));
    return passkey;
  }

  list(user: Pick<User, 'id'>): Promise<Passkey[]> {
    return this.options.store.listForUser(user.id);
  }

  /** False when the user has no passkey with this id. */
  rename(user: Pick<User, 'id'>, credentialId: string, name: string): Promise<boolean> {
    return this.options.store.rename(user.id, credentialId, name);
  }

  /**
   * Removes the user's passkey unless it is the last way in: a security change (`passkey.removed`,
   * announced: every session, refresh family and token of the user ends; the asking session is
   * re-issued), and a notice to the owner. A refused removal writes and announces nothing.
   */
  async remove(user: User, credentialId: string, change: SelfServiceChange = {}): Promise<PasskeyRemoval> {
    const { store, clock, audit, securityChanges } = this.options;
    const asking = await securityChanges.askingSession(change);
    const passkey = (await store.listForUser(user.id)).find((candidate) => candidate.credentialId === credentialId);
    if (passkey === undefined) return { outcome: 'not-found' };
    const outcome = await this.options.unitOfWork.atomically(async () => {
      const removal = await store.removeUnlessLastWayIn(user.id, credentialId, clock.now());
      if (removal === 'removed') await audit.record('passkey.removed', { userId: user.id, ip: change.ip, detail: { credentialId } });
      return removal;
    });
    if (outcome !== 'removed') return { outcome };
    await this.notify((mails) => mails.passkeyRemoved(user, passkey.name));
    return { outcome, session: await securityChanges.committed(asking) };
  }

  /**
   * `PublicKeyCredentialRequestOptionsJSON` for a sign-in with any discoverable passkey (no
   * `allowCredentials`), and its challenge, which the caller binds to the browser (a cookie).
   */
  async authenticationOptions(): Promise<{ options: PasskeyOptionsJSON; challenge: string; expiresAt: number }> {
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID: this.options.rpId,
      challenge: new Uint8Array(this.options.random.bytes(CHALLENGE_BYTES)),
      timeout: PASSKEY_CHALLENGE_MS,
      userVerification: 'preferred',
      allowCredentials: [],
    });
    const expiresAt = await this.issue(options.challenge, 'authentication', { userId: null, binding: null, name: null });
    return { options: options as unknown as PasskeyOptionsJSON, challenge: options.challenge, expiresAt };
  }

  /**
   * Verifies a sign-in assertion made over `challenge` (the one this browser was given; spent by
   * this call, whatever its outcome), and records the use: the new signature counter and backup
   * state. A counter that does not go up (unless it stays 0) is refused and audited as
   * `passkey.refused`: two authenticators share the key, or an assertion was replayed.
   */
  async verifyAssertion(challenge: string, response: PasskeyCredentialJSON, context: { ip?: string | null } = {}): Promise<PasskeyAssertion> {
    const { store, clock, audit } = this.options;
    const passkey = await store.findByCredentialId(response.id);
    // Spent first, for an unknown credential too: a challenge presented once is never good again.
    const spent = (await this.spend(challenge, 'authentication')) !== null;
    if (passkey === null) return { kind: 'refused', reason: 'unknown-passkey', passkey: null };
    if (!spent) return { kind: 'refused', reason: 'spent-challenge', passkey };
    const handle = response.response.userHandle;
    if (handle !== undefined && handle !== userHandleOf(passkey.userId)) return { kind: 'refused', reason: 'passkey-verification', passkey };
    const { verifyAuthenticationResponse } = await webauthn();
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.options.origin,
        expectedRPID: this.options.rpId,
        // The counter policy is the store's compare-and-set below, atomic across instances.
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')), counter: 0 },
        requireUserVerification: false,
      });
    } catch (error) {
      this.options.logger.info({ reason: reasonOf(error), userId: passkey.userId }, 'a passkey assertion failed verification');
      return { kind: 'refused', reason: 'passkey-verification', passkey };
    }
    if (!verified.verified) return { kind: 'refused', reason: 'passkey-verification', passkey };
    const { newCounter, credentialBackedUp, userVerified } = verified.authenticationInfo;
    if (!(await store.recordUse(passkey.credentialId, { counter: newCounter, backedUp: credentialBackedUp, usedAt: clock.now() }))) {
      await audit.record('passkey.refused', {
        userId: passkey.userId,
        ip: context.ip,
        detail: { credentialId: passkey.credentialId, reason: 'counter', storedCounter: passkey.counter, presentedCounter: newCounter },
      });
      return { kind: 'refused', reason: 'passkey-counter', passkey };
    }
    return { kind: 'verified', passkey, userVerified };
  }

  /** Stores the challenge's hash until it expires; returns when. */
  private async issue(challenge: string, purpose: PasskeyChallengePurpose, bound: Pick<PasskeyChallenge, 'userId' | 'binding' | 'name'>): Promise<number> {
    const expiresAt = this.options.clock.now() + PASSKEY_CHALLENGE_MS;
    await this.options.store.issueChallenge({ id: sha256Hex(challenge), purpose, ...bound, expiresAt });
    return expiresAt;
  }

  private spend(challenge: string, purpose: PasskeyChallengePurpose): Promise<PasskeyChallenge | null> {
    return this.options.store.spendChallenge(sha256Hex(challenge), purpose, this.options.clock.now());
  }

  /** The change stands whether or not its notice is composed and leaves. */
  private notify(compose: (mails: Mails) => MailMessage): Promise<void> {
    return sendNotice(this.options.mailer, this.options.logger, () => compose(this.options.mails ?? BUILT_IN_MAILS));
  }
}

/** The user handle of the user's passkeys: the id as text, base64url (as responses carry it). */
export function userHandleOf(userId: number): string {
  return Buffer.from(String(userId)).toString('base64url');
}

/** The challenge a response's `clientDataJSON` names, or null when it names none. */
function challengeOf(clientDataJSON: string): string | null {
  try {
    const clientData = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' && clientData.challenge.length > 0 ? clientData.challenge : null;
  } catch {
    return null;
  }
}

/**
 * The library's message says which check failed (origin, RP ID hash, signature…); long base64url
 * runs (challenges, credential ids) are left out of the log all the same.
 */
function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/[A-Za-z0-9_-]{20,}/g, '…').slice(0, 200) : 'unknown';
}

type WebAuthnServer = typeof import('@simplewebauthn/server');
let loaded: Promise<WebAuthnServer> | undefined;

/** @simplewebauthn/server, loaded with the first ceremony. */
function webauthn(): Promise<WebAuthnServer> {
  return (loaded ??= importPeer('@simplewebauthn/server', 'Passkeys', () => import('@simplewebauthn/server')));
}

let cbor: Promise<AttestationCbor> | undefined;

/** The CBOR codec @simplewebauthn/server decodes attestation objects with. */
function attestationCbor(): Promise<AttestationCbor> {
  return (cbor ??= importPeer('@simplewebauthn/server', 'Passkeys', () => import('@simplewebauthn/server/helpers')).then(({ isoCBOR }) => ({
    decodeFirst: (input) => isoCBOR.decodeFirst(input),
    encode: (input) => isoCBOR.encode(input as never),
  })));
}
