/**
 * The store's ports, named in domain verbs. One Kysely implementation serves SQLite and
 * PostgreSQL; `test/contracts/` holds one suite per port that every engine must pass.
 *
 * Times are epoch milliseconds. Ids are positive integers. Every method either commits
 * whole or not at all.
 */

import type { ApplicationDatabase } from './application-database.ts';

export interface UserClaim {
  readonly type: string;
  readonly value: string;
}

export interface User {
  readonly id: number;
  /** As the user typed it; mail goes only to this address. */
  readonly email: string;
  readonly userName: string | null;
  readonly passwordHash: string | null;
  readonly emailConfirmed: boolean;
  /** Bumped by a security change: ends sessions, refresh families, tokens and sockets. */
  readonly securityStamp: number;
  /** Bumped by every change of roles or claims (and by security changes): refuses older access tokens. */
  readonly claimsStamp: number;
  /** An automatic lockout lasts until this time (epoch ms), or null. */
  readonly lockoutEnd: number | null;
  readonly lockedByAdmin: boolean;
  readonly accessFailedCount: number;
  readonly createdAt: number;
  /** Sorted by name. */
  readonly roles: readonly string[];
  /** In insertion order. */
  readonly claims: readonly UserClaim[];
  /** A second factor is asked for at sign-in. */
  readonly twoFactorEnabled: boolean;
  /** E.164, or null. */
  readonly phoneNumber: string | null;
  readonly phoneConfirmed: boolean;
  /** Two-factor cookies of first steps passed at or before this time (epoch ms) are spent, or null. */
  readonly twoFactorSpentThrough: number | null;
  /** The organization the user last chose (a new sign-in or token starts there), or null. */
  readonly activeOrganizationId: number | null;
  /** The language tag the user last used here (registering, signing in): their mails' when their own request did not cause them; null when unknown. */
  readonly language: string | null;
}

export interface NewUser {
  readonly email: string;
  /** The canonical form used for uniqueness and look-ups (NFKC, lower case). */
  readonly normalizedEmail: string;
  readonly userName: string | null;
  readonly normalizedUserName: string | null;
  readonly passwordHash: string | null;
  readonly emailConfirmed: boolean;
  readonly roles?: readonly string[];
  readonly claims?: readonly UserClaim[];
  readonly createdAt: number;
  /** The id in the system the user was imported from. */
  readonly externalId?: string | null;
  /** The language tag of the registration's request, or null. */
  readonly language?: string | null;
}

/** A write refused by a unique constraint; `field` names what was taken. */
export class StoreConflictError extends Error {
  constructor(readonly field: 'email' | 'userName' | 'client' | 'kid' | 'name' | 'login' | 'credential' | 'slug') {
    super(`The ${field} is already taken.`);
    this.name = 'StoreConflictError';
  }
}

/** The database could not be reached or answered with a connection-level error. */
export class StoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The store is unavailable.', options);
    this.name = 'StoreUnavailableError';
  }
}

export interface UserStore {
  /** Creates the user with its roles and claims; throws `StoreConflictError` for a taken e-mail or user name. */
  create(user: NewUser): Promise<User>;
  /** Creates them all in one transaction, or none (`StoreConflictError` for a taken e-mail or user name). */
  createMany(users: readonly NewUser[]): Promise<User[]>;
  findById(id: number): Promise<User | null>;
  /** The users of these ids that exist, by id, in three queries whatever their number. */
  findByIds(ids: readonly number[]): Promise<User[]>;
  findByNormalizedEmail(normalizedEmail: string): Promise<User | null>;
  findByNormalizedUserName(normalizedUserName: string): Promise<User | null>;
  /** All users, by id. */
  list(): Promise<User[]>;
  /**
   * A page of the users whose normalized e-mail or user name contains `query`, compared in lower
   * case (every user for `''`), by id: at most `limit` after skipping `offset`, with how many
   * match in all. The admin console's search; `%` and `_` are plain characters here.
   */
  search(search: UserSearch): Promise<UserSearchPage>;
  /** Deletes the user and everything that hangs on it; false when there was none. */
  delete(id: number): Promise<boolean>;
  /** Adds a role (created on first use) and bumps the claims stamp; false when the user had it already. */
  addRole(userId: number, role: string): Promise<boolean>;
  /** Removes a role and bumps the claims stamp; false when the user did not have it. */
  removeRole(userId: number, role: string): Promise<boolean>;
  /** Adds a custom claim and bumps the claims stamp; false when the same pair exists. */
  addClaim(userId: number, claim: UserClaim): Promise<boolean>;
  /** Removes a custom claim and bumps the claims stamp; false when there was none. */
  removeClaim(userId: number, claim: UserClaim): Promise<boolean>;
  /** Sets or clears the admin lock; a lock is a security change (bumps both stamps). False for an unknown user. */
  setAdminLock(userId: number, locked: boolean): Promise<boolean>;
  /**
   * The admin API's lock, deletion and role removal: each as `setAdminLock(userId, true)`,
   * `delete` and `removeRole`, unless the user holds `adminRole` and no other holder of it is
   * free of an admin lock; then nothing changes and the answer is 'last-admin'. The check and
   * the change are one step: of concurrent calls that each take away one admin, the last one
   * left stays, whichever engine and however many processes. 'absent' for an unknown user (or,
   * removing a role, one without it).
   */
  lockKeepingAdmin(userId: number, adminRole: string): Promise<AdminKeepingChange>;
  deleteKeepingAdmin(userId: number, adminRole: string): Promise<AdminKeepingChange>;
  removeRoleKeepingAdmin(userId: number, role: string, adminRole: string): Promise<AdminKeepingChange>;
  /** Clears an automatic lockout and the failure count; false for an unknown user. */
  clearLockout(userId: number): Promise<boolean>;
  /** A new password hash: a security change (stamps bumped, refresh families revoked, a revocation event). False for an unknown user. */
  setPassword(userId: number, passwordHash: string): Promise<boolean>;
  /**
   * Counts one failed sign-in, atomically: on an account neither locked by an admin nor within
   * a lockout at `now`, the count goes up by one; the failure that reaches `maxAttempts` instead
   * sets `lockoutEnd` and resets the count. True only for that failure, so however many fail at
   * once, exactly one locks. A locked or unknown account is left as it is (false).
   */
  recordFailedSignIn(userId: number, failure: FailedSignIn): Promise<boolean>;
  /**
   * A completed sign-in: resets the failure count, unless the account is locked at `now` (by an
   * admin or a lockout that began while the password was being checked). False when it is
   * locked, or unknown: the sign-in must then fail. A count already at 0 is not written again
   * (as ASP.NET's `ResetAccessFailedCountAsync`): most sign-ins then only read.
   */
  completeSignIn(userId: number, now: number): Promise<boolean>;
  /**
   * Spends the pending two-factor sign-in whose first step began at `startedAt`, with every one
   * of the user begun before it: true when none begun at or after `startedAt` was spent before,
   * so of many concurrent uses of one two-factor cookie exactly one wins. False for an unknown user.
   */
  spendTwoFactorStep(userId: number, startedAt: number): Promise<boolean>;
  /** The language the user now uses (a sign-in's): their mails' from then on. False for an unknown user. */
  rememberLanguage(userId: number, language: string): Promise<boolean>;
  /**
   * Replaces a hash that just verified with a stronger one of the same password, if it is still
   * `expectedHash`: not a security change (sessions and tokens go on). False otherwise.
   */
  upgradePasswordHash(userId: number, expectedHash: string, newHash: string): Promise<boolean>;
  /**
   * A page of the password hashes that are not Argon2 (`$argon2…`): those of users imported from
   * another system who have not signed in since. At most `limit`, by user id, after `afterUserId`;
   * only the id and the hash are read, so a scan of a large users table stays cheap.
   */
  listNonArgon2PasswordHashes(afterUserId: number, limit: number): Promise<StoredPasswordHash[]>;
}

export interface UserSearch {
  readonly query: string;
  readonly limit: number;
  readonly offset: number;
}

export interface UserSearchPage {
  readonly users: User[];
  /** How many users match, on every page. */
  readonly total: number;
}

export interface StoredPasswordHash {
  readonly userId: number;
  readonly passwordHash: string;
}

/** What a change that must leave a usable admin did. */
export type AdminKeepingChange = 'done' | 'absent' | 'last-admin';

export interface FailedSignIn {
  readonly maxAttempts: number;
  /** When the lockout ends, should this failure lock the account (epoch ms). */
  readonly lockoutEnd: number;
  readonly now: number;
}

export interface ApiKeyRecord {
  readonly id: number;
  readonly client: string;
  /** The public part of the key, used to find it. */
  readonly publicId: string;
  /** SHA-256 of the secret part, hex. */
  readonly secretHash: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

export interface ApiKeyClientSummary {
  readonly client: string;
  readonly activeKeys: number;
  readonly createdAt: number;
}

export interface ApiKeyStore {
  create(key: { client: string; publicId: string; secretHash: string; createdAt: number }): Promise<ApiKeyRecord>;
  /** The key with this public id, revoked or not. */
  findByPublicId(publicId: string): Promise<ApiKeyRecord | null>;
  /** Clients with at least one key, by name. */
  listClients(): Promise<ApiKeyClientSummary[]>;
  /** Revokes every active key of the client; returns how many there were. */
  revokeClient(client: string, revokedAt: number): Promise<number>;
}

export interface SigningKeyRecord {
  readonly kid: string;
  readonly alg: string;
  /** The public JWK, JSON. */
  readonly publicJwk: string;
  /** The private JWK, sealed by the key ring (encrypted when KEYRING_SECRET is set). */
  readonly privateJwk: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

export interface KeyRingStore {
  /**
   * Creates the ring (its sealed secrets and first signing key) unless one exists, under a
   * unique constraint so that instances starting together agree. True when this call created it.
   */
  createRingIfAbsent(ring: { secrets: string; firstKey: SigningKeyRecord; createdAt: number }): Promise<boolean>;
  /** The sealed secrets, or null before the ring exists. */
  loadSecrets(): Promise<string | null>;
  /** Every signing key not revoked, newest first. */
  listActiveSigningKeys(): Promise<SigningKeyRecord[]>;
  addSigningKey(key: SigningKeyRecord): Promise<void>;
  /** Marks the key revoked; false when no active key has this kid. */
  revokeSigningKey(kid: string, revokedAt: number): Promise<boolean>;
}

export interface AuditEvent {
  readonly id: number;
  readonly type: string;
  readonly userId: number | null;
  readonly at: number;
  readonly ip: string | null;
  readonly detail: Readonly<Record<string, unknown>> | null;
}

/** A page of the audit trail, and what its events must match: every filter given narrows it. */
export interface AuditQuery {
  readonly limit: number;
  /** An exclusive upper bound on the id: the page after the one that ended there. */
  readonly before?: number | undefined;
  readonly type?: string | undefined;
  readonly userId?: number | undefined;
  /** Events at or after this time (epoch ms). */
  readonly from?: number | undefined;
  /** Events before this time (epoch ms). */
  readonly to?: number | undefined;
}

export interface AuditStore {
  append(event: Omit<AuditEvent, 'id'>): Promise<void>;
  /** Newest first (by id), at most `limit`, matching every filter given. */
  list(page: AuditQuery): Promise<AuditEvent[]>;
}

/** A refresh-token family: every token rotated from one sign-in. Its lifetime is fixed at creation. */
export interface RefreshFamily {
  readonly id: number;
  readonly userId: number;
  /** The user's security stamp when the family began; a later security change ends the family. */
  readonly securityStamp: number;
  /** How the sign-in that began it was made; null for families begun before families recorded it. */
  readonly method: SignInMethod | null;
  /** The organization its access tokens are issued for (the active one), or null. */
  readonly organizationId: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly revokedAt: number | null;
  /** Its last refresh (its creation until the first). */
  readonly lastSeenAt: number;
  /** The client at its last refresh (at its creation until the first). */
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/**
 * The client a session or refresh family was last used from: its `User-Agent` (cut to
 * `MAX_USER_AGENT_LENGTH`) and its address as `TRUST_PROXY` allows. Null where it was not told.
 */
export interface SignInClient {
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/** The longest user agent a session or family keeps; longer ones are cut. */
export const MAX_USER_AGENT_LENGTH = 256;

export interface RefreshTokenRecord {
  readonly id: number;
  readonly familyId: number;
  /** The token this one replaced, or null for the first of its family. */
  readonly parentId: number | null;
  /** SHA-256 of the token, hex: the token itself is never stored. */
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly usedAt: number | null;
  /** The successor pair, sealed with a server-side key, kept only until `graceUntil`. */
  readonly graceSealed: string | null;
  readonly graceUntil: number | null;
}

/** What became of a presented refresh token. */
export type RotationOutcome =
  /** The token was the live head of its family: it is now used and `next` is the new head. */
  | { readonly kind: 'rotated'; readonly family: RefreshFamily; readonly next: RefreshTokenRecord }
  /**
   * The token was used before (or lost a race). `successorUnused` tells whether it is the
   * immediate predecessor of the family's live head, the case a grace window may forgive.
   */
  | { readonly kind: 'reused'; readonly family: RefreshFamily; readonly token: RefreshTokenRecord; readonly successorUnused: boolean }
  /** The family was revoked, or has expired. */
  | { readonly kind: 'ended'; readonly family: RefreshFamily }
  | { readonly kind: 'unknown' };

/** A family about to begin: its user, how the user signed in, from which client, and its first token's hash. */
export interface NewRefreshFamily {
  readonly userId: number;
  readonly securityStamp: number;
  readonly tokenHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly method?: SignInMethod | null;
  readonly client?: SignInClient;
  /** The organization its access tokens are issued for. @default null */
  readonly organizationId?: number | null;
}

export interface RefreshTokenStore {
  /** Starts a family with its first token; its last use is its creation. */
  createFamily(family: NewRefreshFamily): Promise<{ family: RefreshFamily; token: RefreshTokenRecord }>;
  /**
   * Marks `tokenHash` used and stores its successor `nextHash`, in one atomic step that exactly
   * one of many concurrent callers wins (on both engines). Only the unused token of a live,
   * unexpired family rotates; `grace` is kept on the used token for a benign repeat. A rotation
   * is a use of the family: its last use becomes `now`, from `client` when given.
   */
  rotate(rotation: {
    tokenHash: string;
    nextHash: string;
    now: number;
    grace: { sealed: string; until: number } | null;
    client?: SignInClient;
  }): Promise<RotationOutcome>;
  /** The token and its family, or null. */
  find(tokenHash: string): Promise<{ token: RefreshTokenRecord; family: RefreshFamily } | null>;
  /**
   * Ends the family (idempotent), with a `family` revocation event in the same transaction, so
   * that its access tokens are refused on every instance too; true when it was live.
   */
  revokeFamily(familyId: number, now: number): Promise<boolean>;
  /** Ends every live family of the user; returns how many. */
  revokeUserFamilies(userId: number, now: number): Promise<number>;
  /** Housekeeping: deletes families (and their tokens) that expired or were revoked before `before`, and clears grace values past their time. */
  prune(before: number): Promise<number>;
}

/**
 * A change every instance must honour within seconds: the feed that revocation polls (and that
 * Redis pushes). Written in the same transaction as the change itself.
 *
 * - `user`: the user's stamps changed; `subject` is the user id, `claimsStamp`/`securityStamp` the new values;
 * - `user-deleted`: the user is gone; `subject` is the user id;
 * - `session`: cookie sessions of the user ended (sign-out, …); `subject` is the user id;
 * - `family`: a refresh-token family ended, and with it the access tokens issued from it; `subject` is the family id;
 * - `api-key`: an API key was revoked; `subject` is its public id;
 * - `signing-key`: a signing key was revoked; `subject` is its kid.
 */
export interface RevocationEvent {
  readonly id: number;
  readonly kind: 'user' | 'user-deleted' | 'session' | 'family' | 'api-key' | 'signing-key';
  readonly subject: string;
  readonly claimsStamp: number | null;
  readonly securityStamp: number | null;
  readonly at: number;
}

export interface RevocationStore {
  /** Events with `at` ≥ `since`, oldest first (callers poll with an overlap; applying an event twice is harmless). */
  listSince(since: number): Promise<RevocationEvent[]>;
  /** Housekeeping: deletes events older than `before`. */
  prune(before: number): Promise<number>;
}

export type AccountCodePurpose = 'confirm-email' | 'reset-password';

/** Codes mailed to a user (only their SHA-256 is stored); each use is one transaction. */
/** What a password reset takes away besides the old password: the ways in its owner no longer trusts. */
export interface ResetRemovals {
  readonly passkeys?: boolean;
  readonly externalLogins?: boolean;
}

export interface AccountCodeStore {
  /** Stores a code and voids the user's unused codes of the same purpose, at once. */
  issue(code: {
    userId: number;
    purpose: AccountCodePurpose;
    codeHash: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<void>;
  /**
   * Confirms the e-mail, and nothing else: the password never changes here (a link that set one
   * would let whoever registered again with someone's address choose their password). Also
   * `confirmed` when this user already used this code; `invalid` when it is unknown, voided,
   * expired or another user's.
   */
  confirmEmail(use: { userId: number; codeHash: string; now: number }): Promise<'confirmed' | 'invalid'>;
  /**
   * Sets the password with a reset code, once: a security change that also lifts an automatic
   * lockout (not an admin lock, nor the failure count), and removes the user's passkeys and
   * external logins when `remove` says so, in the same transaction. False (nothing changed) for
   * a wrong, used, voided or expired code.
   */
  resetPassword(use: { userId: number; codeHash: string; passwordHash: string; now: number; remove?: ResetRemovals }): Promise<boolean>;
}

/** The authenticator (TOTP) key of a user, sealed as the store keeps it. */
export interface AuthenticatorKeys {
  /** The key in use while two-factor is on. */
  readonly activeKey: string | null;
  /** A key set up but not yet confirmed with one of its codes. */
  readonly pendingKey: string | null;
  /** The RFC 6238 time step of the last accepted code. */
  readonly lastStep: number | null;
}

export type OneTimeCodePurpose = 'two-factor-email' | 'two-factor-phone' | 'confirm-phone';

/**
 * Two-factor state: the authenticator key, recovery codes (hashes) and the 6-digit codes sent by
 * mail or SMS (keyed hashes). Turning two-factor on or off is a security change.
 */
export interface TwoFactorStore {
  authenticatorKeys(userId: number): Promise<AuthenticatorKeys>;
  /** Replaces the pending key. */
  setPendingKey(userId: number, sealedKey: string): Promise<void>;
  /**
   * Turns two-factor on with the pending key `sealedKey` (false when the pending key is another by
   * now), accepting `step`, and replaces the recovery codes: one transaction, a security change.
   */
  enable(userId: number, change: { sealedKey: string; step: number; recoveryCodeHashes: readonly string[]; now: number }): Promise<boolean>;
  /** Turns two-factor off and forgets the keys and recovery codes: a security change. False when it was off. */
  disable(userId: number, now: number): Promise<boolean>;
  /** Accepts a code of time step `step` once: false when that step or a later one was accepted before. */
  acceptStep(userId: number, step: number): Promise<boolean>;
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[]): Promise<void>;
  /** Uses one recovery code; false when it is unknown or used. */
  redeemRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean>;
  countRecoveryCodes(userId: number): Promise<number>;
  /** Stores a code and voids the user's unused codes of the same purpose, at once. */
  issueCode(code: { userId: number; purpose: OneTimeCodePurpose; codeHash: string; phoneNumber: string | null; createdAt: number; expiresAt: number }): Promise<void>;
  /** Uses a code once; the phone number it was sent for (or null), or undefined when it is wrong, used, voided or expired. */
  useCode(use: { userId: number; purpose: OneTimeCodePurpose; codeHash: string; now: number }): Promise<{ phoneNumber: string | null } | undefined>;
  /** A new, unconfirmed phone number (null removes it). */
  setPhoneNumber(userId: number, phoneNumber: string | null): Promise<void>;
  /** Confirms the phone number if it is still `phoneNumber`. */
  confirmPhoneNumber(userId: number, phoneNumber: string): Promise<boolean>;
}

/**
 * How a session was opened (docs/reference/http.md, `GET /account/sessions`): a password alone, a
 * passkey, a password and a second factor, or a provider's sign-in (`external:<provider>`, also
 * when a second factor followed it: the provider is what a user cuts by unlinking it).
 */
export type SignInMethod = 'password' | 'passkey' | 'two-factor' | `external:${string}`;

/** The method of a session opened through `provider`. */
export function externalMethod(provider: string): SignInMethod {
  return `external:${provider}`;
}

/** A cookie session: one sign-in, found by the hash of the token its cookie holds. */
export interface Session {
  readonly id: number;
  readonly userId: number;
  /** SHA-256 of the session token, hex: the token itself is never stored. */
  readonly tokenHash: string;
  /** The user's security stamp at sign-in; a later security change ends the session. */
  readonly securityStamp: number;
  /** Signed in with "remember me": the cookie outlives the browser session. */
  readonly persistent: boolean;
  /** How it was opened; null for sessions opened before sessions recorded it. */
  readonly method: SignInMethod | null;
  /** The organization its principal carries (the active one), or null. */
  readonly organizationId: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** Its last recorded use (at most a minute behind: see `SessionManager`); its creation at first. */
  readonly lastSeenAt: number;
  /** The client of that use. */
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/** A session to store: its last use is its creation, from `client` when given. */
export type NewSession = Omit<Session, 'id' | 'lastSeenAt' | 'userAgent' | 'ip' | 'organizationId'> & {
  readonly client?: SignInClient;
  /** @default null */
  readonly organizationId?: number | null;
};

/** A use of a session worth writing down: when, from where (the recorded client stays when not told), and its new expiry when it slid. */
export interface SessionUse {
  readonly at: number;
  readonly client?: SignInClient;
  readonly expiresAt?: number;
}

export interface SessionStore {
  create(session: NewSession): Promise<Session>;
  /** The session with this token hash that has not expired at `now`, or null. */
  findByTokenHash(tokenHash: string, now: number): Promise<Session | null>;
  /** Moves the session's expiry to `expiresAt` (sliding); false when it is gone. */
  slide(id: number, expiresAt: number): Promise<boolean>;
  /** Records a use (and the slid expiry, when given) in one write; false when the session is gone. */
  recordUse(id: number, use: SessionUse): Promise<boolean>;
  /** Deletes the session with this token hash (sign-out), with a `session` revocation event; false when there was none. */
  delete(tokenHash: string): Promise<boolean>;
  /** Deletes every session of the user, except the one with id `exceptId`, with a `session` revocation event; returns how many. */
  deleteUserSessions(userId: number, exceptId?: number): Promise<number>;
  /** Deletes the user's sessions opened by `method`, with a `session` revocation event; returns how many. */
  deleteUserSessionsByMethod(userId: number, method: SignInMethod): Promise<number>;
  /** Housekeeping: deletes sessions that expired before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

/** Which credential a user's session is: a cookie session, or a refresh-token family. */
export type UserSessionKind = 'cookie' | 'token';

/** One place a user is signed in: a live cookie session or a live refresh-token family. */
export interface UserSession {
  readonly kind: UserSessionKind;
  /** The session's or the family's id (each kind counts its own). */
  readonly id: number;
  readonly userId: number;
  readonly method: SignInMethod | null;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
  /** A cookie session's token hash (to tell the request's own); null for a family. */
  readonly tokenHash: string | null;
}

/** A session of either kind, by kind and id. */
export interface UserSessionRef {
  readonly kind: UserSessionKind;
  readonly id: number;
}

/**
 * "Where you are signed in": a user's cookie sessions and refresh-token families side by side.
 * Every ending commits with its revocation events (`session` naming the user, `family` naming
 * each family) in one transaction, so sockets and access tokens end with it on every instance.
 */
export interface UserSessionStore {
  /** The user's sessions and families live at `now`, the most recently used first. */
  list(userId: number, now: number): Promise<UserSession[]>;
  /** Ends that session or family if it is the user's and live at `now`; false otherwise. */
  end(userId: number, session: UserSessionRef, now: number): Promise<boolean>;
  /** Ends every live session and family of the user but those of `keep`; returns how many ended. */
  endAll(userId: number, now: number, keep?: readonly UserSessionRef[]): Promise<number>;
}

export type OutboxChannel = 'mail' | 'sms';

/** A mail or SMS kept in the dev outbox (docs/reference/configuration.md) instead of being sent. */
export interface OutboxMessage {
  readonly id: number;
  readonly channel: OutboxChannel;
  /** The address or phone number it was meant for, exactly as given. */
  readonly recipient: string;
  /** Null for SMS. */
  readonly subject: string | null;
  readonly text: string;
  readonly html: string | null;
  readonly createdAt: number;
}

/** The dev outbox: where mail and SMS go when no real channel is configured outside production. */
export interface OutboxStore {
  append(message: Omit<OutboxMessage, 'id'>): Promise<OutboxMessage>;
  /**
   * Newest first (by id), so `list({ recipient, limit: 1 })` is the latest message to someone.
   * `recipient` matches exactly; `limit` defaults to 100.
   */
  list(query?: { recipient?: string; limit?: number }): Promise<OutboxMessage[]>;
}

/** A user's login at an external provider. */
export interface ExternalLogin {
  readonly userId: number;
  /** The provider's route name (`OIDC_<NAME>_*`, lower case). */
  readonly provider: string;
  /** The provider's `sub` for the user. */
  readonly subject: string;
  readonly createdAt: number;
}

export interface ExternalLoginStore {
  find(provider: string, subject: string): Promise<ExternalLogin | null>;
  listForUser(userId: number): Promise<ExternalLogin[]>;
  /** Links; throws `StoreConflictError('login')` when the pair or the user's login at that provider exists. */
  add(login: ExternalLogin): Promise<void>;
  /** Unlinks; false when there was none. */
  remove(userId: number, provider: string): Promise<boolean>;
  /**
   * Unlinks unless it is the user's last way to sign in (no password, no other login, no passkey), as one
   * step: concurrent removals of the user's logins never leave none. `not-linked` when there was
   * no such login (or no such user).
   */
  removeUnlessLastWayIn(userId: number, provider: string): Promise<'removed' | 'not-linked' | 'last-way-in'>;
  /**
   * Creates a user (e-mail confirmed by the provider, no password) with the login, in one
   * transaction; `StoreConflictError` when the e-mail or the pair is taken meanwhile.
   */
  createUserWithLogin(user: NewUser, login: Omit<ExternalLogin, 'userId'>): Promise<User>;
  /**
   * Marks an external sign-in flow as used, by an id derived from its state; false when it was
   * used before (a replayed callback). Remembered until `expiresAt`, when the flow's
   * correlation cookie expires anyway.
   */
  spendCorrelation(id: string, expiresAt: number): Promise<boolean>;
  /** Housekeeping: forgets spent flows that expired before `before`; returns how many. */
  pruneSpentCorrelations(before: number): Promise<number>;
}

/** A user's WebAuthn credential (docs/passkeys.md). */
export interface Passkey {
  readonly userId: number;
  /** The credential id, base64url: unique across users. */
  readonly credentialId: string;
  /** The COSE public key, base64url. */
  readonly publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  readonly counter: number;
  /** The transports the authenticator named at registration (`usb`, `internal`, `hybrid`, …). */
  readonly transports: readonly string[];
  /** Synced to other devices (the BS flag) as last seen. */
  readonly backedUp: boolean;
  /** `singleDevice` or `multiDevice` (the BE flag at registration). */
  readonly deviceType: string;
  /** The owner's name for it. */
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

export type NewPasskey = Omit<Passkey, 'lastUsedAt'>;

/** What a WebAuthn challenge was issued for. */
export type PasskeyChallengePurpose = 'registration' | 'authentication';

export interface PasskeyChallenge {
  /** SHA-256 of the challenge, hex. */
  readonly id: string;
  readonly purpose: PasskeyChallengePurpose;
  /** Registration: the user it was issued to, else null. */
  readonly userId: number | null;
  /** Registration: the session (or caller) that asked for it, which alone may answer it; else null. */
  readonly binding: string | null;
  /** Registration: the name asked for with the options. */
  readonly name: string | null;
  readonly expiresAt: number;
}

export interface PasskeyStore {
  /** Adds the credential; throws `StoreConflictError('credential')` when its id is registered already (to anyone). */
  add(passkey: NewPasskey): Promise<Passkey>;
  findByCredentialId(credentialId: string): Promise<Passkey | null>;
  /** The user's passkeys, oldest first. */
  listForUser(userId: number): Promise<Passkey[]>;
  /** Renames the user's passkey; false when the user has none with this id. */
  rename(userId: number, credentialId: string, name: string): Promise<boolean>;
  /**
   * Records a verified use, as one compare-and-set: the counter moves to `counter` only if that is
   * above the stored one (or both are 0, for authenticators that keep no counter); false, and
   * nothing written, otherwise (a cloned authenticator, or a concurrent use that got there first).
   */
  recordUse(credentialId: string, use: { counter: number; backedUp: boolean; usedAt: number }): Promise<boolean>;
  /**
   * Removes the user's passkey unless it is the user's last way to sign in (no password, no
   * external login, no other passkey), as one step; the removal is a security change (stamps
   * bumped, refresh families revoked, a revocation event). `not-found` when the user has none
   * with this id.
   */
  removeUnlessLastWayIn(userId: number, credentialId: string, now: number): Promise<'removed' | 'not-found' | 'last-way-in'>;
  /** Stores a challenge (its hash) until `expiresAt`. */
  issueChallenge(challenge: PasskeyChallenge): Promise<void>;
  /**
   * Takes the challenge with this hash and purpose, once: of many concurrent calls, on any
   * instance, exactly one gets it. Null when it is unknown, spent, of another purpose or expired
   * at `now` (an expired one is deleted all the same).
   */
  spendChallenge(id: string, purpose: PasskeyChallengePurpose, now: number): Promise<PasskeyChallenge | null>;
  /** Housekeeping: deletes challenges that expired before `before`; returns how many. */
  pruneChallenges(before: number): Promise<number>;
}

/** An organization (docs/organizations.md): its id is never reused. */
export interface Organization {
  readonly id: number;
  readonly name: string;
  /** `[a-z0-9-]{2,64}`, unique. */
  readonly slug: string;
  readonly createdAt: number;
}

/** An organization with how many members it has. */
export interface OrganizationSummary extends Organization {
  readonly members: number;
}

/** One of a user's organizations, with the roles the user holds there. */
export interface OrganizationMembership {
  readonly organization: Organization;
  /** Sorted by name. */
  readonly roles: readonly string[];
  readonly joinedAt: number;
}

/** A member of one organization, as its members list shows them. */
export interface OrganizationMember {
  readonly userId: number;
  readonly email: string;
  readonly userName: string | null;
  /** Sorted by name. */
  readonly roles: readonly string[];
  readonly joinedAt: number;
}

export interface OrganizationInvitation {
  readonly id: number;
  readonly organizationId: number;
  /** As the inviter typed it: the mail goes there. */
  readonly email: string;
  /** The canonical form the accepting user's confirmed e-mail must equal. */
  readonly normalizedEmail: string;
  /** What the invited person becomes a member with. */
  readonly roles: readonly string[];
  /** The user who invited, or null (the command line, the application, or a user since deleted). */
  readonly invitedBy: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly acceptedAt: number | null;
  readonly revokedAt: number | null;
}

export type NewOrganizationInvitation = Omit<OrganizationInvitation, 'id' | 'acceptedAt' | 'revokedAt'> & {
  /** SHA-256 of the code the link carries, hex: the code itself is never stored. */
  readonly codeHash: string;
};

/**
 * What a change that must leave the organization an `OrgOwner` did: `absent` for an unknown
 * organization or a user who is not its member; `last-owner` when it would take the last owner
 * away (nothing changed).
 */
export type OwnerKeepingChange = 'done' | 'absent' | 'last-owner';

/**
 * Organizations, their members with their organization roles, and invitations (decision 0092).
 * Every change that takes something away from a member (removal, fewer or other roles, the
 * organization's deletion) bumps the claims stamp of each member concerned in its transaction,
 * with its revocation event, so that their access tokens are refused and their sessions re-read.
 * Adding a member or roles changes no credential and bumps nothing.
 */
export interface OrganizationStore {
  /** Creates it with its first member (`owner`, with its roles); `StoreConflictError('slug')` for a taken slug. */
  create(organization: { name: string; slug: string; createdAt: number }, owner: { userId: number; roles: readonly string[] }): Promise<Organization>;
  findById(id: number): Promise<Organization | null>;
  /** Whether the slug is taken (by any organization), to pick a free one before `create`. */
  slugTaken(slug: string): Promise<boolean>;
  /** Every organization with its member count, by id. */
  list(): Promise<OrganizationSummary[]>;
  /** The user's organizations with the user's roles there, by organization id. */
  listForUser(userId: number): Promise<OrganizationMembership[]>;
  /** Renames it or changes its slug; null for an unknown organization; `StoreConflictError('slug')` for a taken slug. */
  update(id: number, changes: { name?: string; slug?: string }): Promise<Organization | null>;
  /**
   * Deletes it with its memberships and invitations; every member's claims stamp goes up, and
   * no session, family or user keeps it as active. False for an unknown organization.
   */
  delete(id: number, now: number): Promise<boolean>;
  /** The user's membership of the organization, or null when the user is not a member. */
  membership(organizationId: number, userId: number): Promise<OrganizationMembership | null>;
  /** The members with their e-mail, user name and roles, by user id. */
  listMembers(organizationId: number): Promise<OrganizationMember[]>;
  /**
   * Makes the user a member with `roles` or, for a member, adds the roles they lack (nothing is
   * taken away, so no stamp moves). `absent` for an unknown organization or user.
   */
  addMember(member: { organizationId: number; userId: number; roles: readonly string[]; joinedAt: number }): Promise<'added' | 'updated' | 'unchanged' | 'absent'>;
  /**
   * Replaces the member's roles (a claims change when they differ), unless that takes `ownerRole`
   * from its last holder in the organization. The check and the change are one step: of
   * concurrent changes that each take one owner away, the last owner stays.
   */
  setMemberRoles(change: { organizationId: number; userId: number; roles: readonly string[]; ownerRole: string; now: number }): Promise<OwnerKeepingChange>;
  /**
   * Removes the member (a claims change), unless they are the last holder of `ownerRole`; the
   * member's sessions, families and remembered choice no longer have the organization active.
   */
  removeMember(change: { organizationId: number; userId: number; ownerRole: string; now: number }): Promise<OwnerKeepingChange>;
  /**
   * The user's choice of active organization (null clears it): remembered on the user and set on
   * the cookie session `sessionId` or the refresh family `familyId` when given (each only if the
   * user's). False, and nothing written, when `organizationId` is not null and the user is not
   * its member.
   */
  chooseActive(choice: { userId: number; organizationId: number | null; sessionId?: number; familyId?: number }): Promise<boolean>;
  /**
   * Stores the invitation, and revokes at `createdAt` the pending ones of the organization to the
   * same normalized e-mail, in one transaction.
   */
  createInvitation(invitation: NewOrganizationInvitation): Promise<OrganizationInvitation>;
  /** The organization's invitations neither accepted, revoked nor expired at `now`, newest first. */
  listPendingInvitations(organizationId: number, now: number): Promise<OrganizationInvitation[]>;
  /** Revokes a pending invitation of the organization; false when there is none with this id. */
  revokeInvitation(organizationId: number, invitationId: number, now: number): Promise<boolean>;
  /** The pending invitation with this code hash at `now`, and its organization; null otherwise. */
  findInvitation(codeHash: string, now: number): Promise<{ invitation: OrganizationInvitation; organization: Organization } | null>;
  /**
   * Spends the pending invitation (still pending at `now`) and makes `userId` a member with its
   * roles (as `addMember`), in one transaction: of concurrent acceptances exactly one wins.
   * Null when it is not pending any more.
   */
  acceptInvitation(accept: { codeHash: string; userId: number; now: number }): Promise<OrganizationInvitation | null>;
  /**
   * Accepts, as `acceptInvitation` does, every invitation to `normalizedEmail` pending at `now`
   * (a new account confirming that address); the ones accepted, oldest first.
   */
  acceptInvitationsTo(accept: { normalizedEmail: string; userId: number; now: number }): Promise<OrganizationInvitation[]>;
}

export type StoreEngine = 'sqlite' | 'postgres';

/**
 * Whether any committed data may have changed since an earlier look, whoever changed it: this
 * process or another one sharing the database. What lets a reader keep an answer computed from
 * the store and serve it again, exactly as long as it is still what the store would say.
 */
export interface DataVersion {
  /**
   * A number that grows whenever any table may have changed; the same number as before means
   * nothing changed in between. Null while the database is not open yet (nothing can be kept).
   */
  current(): number | null;
}

/** Every port over one database connection. */
/**
 * One transaction around several port calls: a change and its audit event commit together or not
 * at all. Inside `atomically`, every port call of the store joins the transaction.
 */
export interface UnitOfWork {
  /** Runs `work` as one transaction; joins the enclosing one when called inside another. */
  atomically<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `effect` once the enclosing unit of work commits, and never when it rolls back; at
   * once outside any. For what must not happen for a change that did not (a log line, a count).
   */
  afterCommit(effect: () => void): void;
}

export interface Store {
  readonly engine: StoreEngine;
  /** Transactions across ports; a property, so that the port boundary leaves `afterCommit` synchronous. */
  readonly unitOfWork: UnitOfWork;
  readonly users: UserStore;
  readonly apiKeys: ApiKeyStore;
  readonly keyRing: KeyRingStore;
  readonly audit: AuditStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationStore;
  readonly accountCodes: AccountCodeStore;
  readonly outbox: OutboxStore;
  readonly sessions: SessionStore;
  /** Cookie sessions and refresh families together, as the user sees and ends them. */
  readonly userSessions: UserSessionStore;
  readonly twoFactor: TwoFactorStore;
  readonly externalLogins: ExternalLoginStore;
  readonly passkeys: PasskeyStore;
  readonly organizations: OrganizationStore;
  /** The same connections, for the application's own tables (decision 0045). */
  readonly database: ApplicationDatabase;
  /**
   * The data version, where the engine can tell it without a round trip (SQLite); null where it
   * cannot (PostgreSQL: telling would cost the query it is meant to spare).
   */
  readonly dataVersion: DataVersion | null;
  /**
   * Applies pending migrations, Gatehouse's and then the application's (`migrations` of
   * `createStore`); safe to run from several processes at once.
   */
  migrate(): Promise<void>;
  /** A trivial round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
