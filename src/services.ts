import type { Logger } from 'pino';
import { AuditLog } from './audit/audit-log.ts';
import type { Config } from './config/config.ts';
import { ApiKeyService } from './identity/api-keys.ts';
import { type Argon2Workers, sharedArgon2Workers } from './identity/argon2-workers.ts';
import { PasswordHasher } from './identity/password-hasher.ts';
import { BUILT_IN_MAILS, type Mails } from './identity/account-mail.ts';
import { CredentialChecks } from './identity/credential-checks.ts';
import { ExternalLogins } from './identity/external-logins.ts';
import { ExternalSignIn } from './identity/external-sign-in.ts';
import { SecurityChanges } from './identity/security-changes.ts';
import { PasswordChange } from './membership/password-change.ts';
import { ProviderSignIn } from './membership/provider-sign-in.ts';
import { SignOut } from './membership/sign-out.ts';
import { AccountLockout, type AccountLockoutOptions } from './identity/lockout.ts';
import { PasswordReset } from './identity/password-reset.ts';
import { RecentSignIn } from './identity/recent-sign-in.ts';
import { Registration } from './identity/registration.ts';
import { SessionManager } from './identity/sessions.ts';
import { SessionIds, UserSessions } from './identity/user-sessions.ts';
import { OpaqueIds } from './security/crypto/opaque-ids.ts';
import { ClientTurns } from './platform/client-turns.ts';
import { CodeHasher } from './identity/two-factor/code-hashes.ts';
import { TwoFactorManager } from './identity/two-factor/two-factor-manager.ts';
import { createSmsSender } from './platform/sms/sms-sender.ts';
import { PasskeyManager } from './identity/passkeys.ts';
import { SignInManager } from './identity/sign-in-manager.ts';
import { UserManager } from './identity/user-manager.ts';
import { type Clock, systemClock } from './platform/clock.ts';
import { createMailer } from './platform/mail/create-mailer.ts';
import type { Mailer } from './platform/mail/mailer.ts';
import { RateLimiter } from './platform/rate-limit/rate-limiter.ts';
import { RedisConnection } from './platform/redis-connection.ts';
import { cryptoRandom, type Random } from './platform/random.ts';
import { Sealer } from './security/crypto/sealer.ts';
import type { Store } from './store/ports.ts';
import { RevocationFeed } from './revocation/revocation-feed.ts';
import { RevocationList } from './revocation/revocation-list.ts';
import { AccessTokens, CLOCK_SKEW_SECONDS } from './tokens/access-token.ts';
import { AccessTokenValidator } from './tokens/access-token-validator.ts';
import { CredentialVerdicts } from './schemes/credential-verdicts.ts';
import { KeyRing } from './tokens/key-ring.ts';
import { RefreshTokens } from './tokens/refresh-tokens.ts';
import { ActiveOrganizations } from './organizations/active-organization.ts';
import { InvitationAcceptance } from './organizations/invitation-acceptance.ts';
import { OrganizationRoles } from './organizations/organization-roles.ts';

export interface ServiceDependencies {
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger: Logger;
  /** Tells an account's owner that it locked (the mailer, once wired); see AccountLockoutOptions. */
  readonly onLockout?: AccountLockoutOptions['onLockout'];
  /** The relying party's name that browsers show at a passkey ceremony. @default 'Gatehouse' */
  readonly passkeyRpName?: string;
  /** Every mail, with the product's name and the application's templates (docs/mails.md). @default the built-in ones, for 'Gatehouse' */
  readonly mails?: Mails;
  /**
   * Organizations are on (`features.organizations`): principals carry the active organization,
   * and `org_id` only from a membership. Off, a custom `org_id` claim travels as any other. @default false
   */
  readonly organizations?: boolean;
}

/** The domain services over one store: what the HTTP ring and the CLI both use. */
export interface Services {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly audit: AuditLog;
  readonly keyRing: KeyRing;
  readonly accessTokens: AccessTokens;
  /** The Bearer scheme's validator: signature, claims and revocation checks. */
  readonly bearerTokens: AccessTokenValidator;
  /** The verdicts of Bearer and ApiKey on credentials presented again, forgotten at the events that concern them. */
  readonly verdicts: CredentialVerdicts;
  readonly refreshTokens: RefreshTokens;
  readonly revocations: RevocationList;
  /** Started by the HTTP app; the CLI only announces its changes through it. */
  readonly revocationFeed: RevocationFeed;
  readonly users: UserManager;
  readonly signIn: SignInManager;
  /** Cookie sessions: sign-in, sign-out, and the Cookies scheme's validator. */
  readonly sessions: SessionManager;
  /** "Where you are signed in": a user's cookie sessions and refresh families, listed and ended. */
  readonly userSessions: UserSessions;
  /** The rule that adding a way in needs a sign-in at most `REAUTH_MINUTES` old. */
  readonly recentSignIn: RecentSignIn;
  readonly apiKeys: ApiKeyService;
  /**
   * Redis when REDIS_URL is set (else null), shared by the revocation feed, the rate limits and
   * the application's events (`createEvents({ redis })`): whether it answers, told once in the
   * log when it goes away and when it comes back; close it with the app.
   */
  readonly redis: RedisConnection | null;
  /** Counters of the sign-in and account routes' rate limits (through Redis when REDIS_URL is set); close with the app. */
  readonly rateLimiter: RateLimiter;
  /** A few sign-in requests of one client at a time, its others held in line (decision 0066). */
  readonly signInTurns: ClientTurns;
  /** SMTP when SMTP_URL is set, else the dev outbox; its pooled connections close with the app. */
  readonly mailer: Mailer;
  /** What each mail says: the product's name, the application's templates or the built-in ones. */
  readonly mails: Mails;
  /** Registration and e-mail confirmation. */
  readonly registration: Registration;
  /** Forgotten passwords: reset links and resets. */
  readonly passwordReset: PasswordReset;
  /** The authenticator, recovery codes, sign-in codes by mail or SMS, phone numbers. */
  readonly twoFactor: TwoFactorManager;
  /** Providers linked to and unlinked from existing accounts, with the owner's notices. */
  readonly externalLogins: ExternalLogins;
  /** Passkeys, for the relying party `WEBAUTHN_RP_ID` and `PUBLIC_URL`'s origin. */
  readonly passkeys: PasskeyManager;
  /** The password-hashing threads and their queue (`queueDepth`, `onWait`), shared by the services of one configuration in the process. */
  readonly hashing: Argon2Workers;
  /** A new password chosen by its owner: the change, its event, the revocation, the asking session re-issued. */
  readonly passwordChange: PasswordChange;
  /** A browser's sign-out, announced to every instance. */
  readonly signOut: SignOut;
  /** Sign-in with an OpenID provider, from its validated callback on. */
  readonly providerSignIn: ProviderSignIn;
  /** The declared organization roles (`ORGANIZATION_ROLES` with the built-in ones). */
  readonly organizationRoles: OrganizationRoles;
  /** The active organization of each credential: read into principals, chosen by the user. */
  readonly activeOrganizations: ActiveOrganizations;
  /** Invitations to organizations spent, by link or by a new account confirming the invited address. */
  readonly invitationAcceptance: InvitationAcceptance;
}

/**
 * Sign-ins one client may have running at once (a hash each, taking turns with other clients'
 * in the hashing queue), and held in line behind them before it is refused (decision 0066).
 */
const SIGN_INS_RUNNING_PER_CLIENT = 4;
const SIGN_INS_WAITING_PER_CLIENT = 256;

/** Opens the key ring (creating it on first start) and wires the services. */
export async function createServices(config: Config, store: Store, dependencies: ServiceDependencies): Promise<Services> {
  const clock = dependencies.clock ?? systemClock;
  const random = dependencies.random ?? cryptoRandom;
  const { logger } = dependencies;
  const sealer = new Sealer(config.keyringSecret);
  const { ring: keyRing, created } = await KeyRing.open({
    store: store.keyRing,
    sealer,
    clock,
    retireAfterSeconds: config.accessTokenSeconds + CLOCK_SKEW_SECONDS,
    unitOfWork: store.unitOfWork,
  });
  if (!sealer.encrypts) logger.warn('KEYRING_SECRET is not set: the key ring is stored unencrypted (allowed outside production only).');
  if (created) logger.info({ kid: keyRing.current.kid }, 'created the key ring');
  const audit = new AuditLog(store.audit, clock, logger, store.unitOfWork);
  const hashing = sharedArgon2Workers({ threads: config.hashThreads, queueMax: config.hashQueueMax });
  const hasher = new PasswordHasher({ parameters: config.argon2, workers: hashing });
  const mails = dependencies.mails ?? BUILT_IN_MAILS;
  const mailer = createMailer(config, store, logger, clock, mails.productName);
  // The owner hears of a lockout by mail, unless the caller (a test) listens itself. Async: a
  // template's failure is logged as a failed notice, never thrown into the sign-in that locked.
  const onLockout = dependencies.onLockout ?? (async (user, until) => mailer.send(mails.lockout(user, until)));
  // One failure counter for sign-in and for the passwords and codes of account operations.
  const lockout = new AccountLockout({
    userStore: store.users,
    audit,
    clock,
    logger,
    lockout: { maxAttempts: config.lockoutMaxAttempts, durationMs: Math.round(config.lockoutSeconds * 1000) },
    onLockout,
  });
  const checks = new CredentialChecks({ lockout, userStore: store.users, audit });
  const users = new UserManager(store.users, hasher, clock, config.passwordMinLength, checks);
  const revocations = new RevocationList();
  const redis = config.redisUrl ? new RedisConnection({ url: config.redisUrl, logger, clock }) : null;
  const revocationFeed = new RevocationFeed({
    store: store.revocations,
    list: revocations,
    clock,
    logger,
    // Access tokens are the longest-lived credentials checked against the feed's memory.
    lookBackMs: (config.accessTokenSeconds + CLOCK_SKEW_SECONDS) * 1000 + RevocationFeed.OVERLAP_MS,
    redis,
  });
  const organizationRoles = new OrganizationRoles(config.organizationRoles);
  const activeOrganizations = new ActiveOrganizations(store.organizations, organizationRoles);
  const invitationAcceptance = new InvitationAcceptance({ store: store.organizations, audit, clock, unitOfWork: store.unitOfWork });
  const sessions = new SessionManager({
    sessions: store.sessions,
    users: store.users,
    revocations,
    clock,
    random,
    lifetimeMs: config.cookieSeconds * 1000,
    ...(dependencies.organizations ? { organizations: activeOrganizations } : {}),
  });
  // What every self-service security change does once committed: announce it, re-issue the asking session.
  const securityChanges = new SecurityChanges({ sessions, revocationFeed });
  const externalLogins = new ExternalLogins({ logins: store.externalLogins, sessions: store.sessions, audit, mailer, mails, clock, logger, securityChanges, unitOfWork: store.unitOfWork });
  const twoFactor = new TwoFactorManager({
    store: store.twoFactor,
    sealer,
    codes: new CodeHasher(keyRing.secrets.cookie),
    audit,
    mailer,
    mails,
    sms: createSmsSender(config, store.outbox, clock, logger),
    clock,
    checks,
    securityChanges,
    unitOfWork: store.unitOfWork,
  });
  const passkeys = new PasskeyManager({
    store: store.passkeys,
    audit,
    mailer,
    mails,
    clock,
    random,
    logger,
    rpId: config.webauthnRpId,
    rpName: dependencies.passkeyRpName ?? 'Gatehouse',
    origin: config.publicUrl.origin,
    securityChanges,
    unitOfWork: store.unitOfWork,
  });
  const accessTokens = new AccessTokens({
    keyRing,
    clock,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
    lifetimeSeconds: config.accessTokenSeconds,
  });
  const refreshTokens = new RefreshTokens({
    store: store.refreshTokens,
    users: store.users,
    accessTokens,
    audit,
    clock,
    random,
    familySeconds: config.refreshTokenSeconds,
    graceSeconds: config.refreshReuseGraceSeconds,
    graceSecret: keyRing.secrets.refreshGrace,
    announceRevocation: () => revocationFeed.changed(),
    ...(dependencies.organizations ? { organizations: activeOrganizations } : {}),
  });
  return {
    config,
    store,
    clock,
    logger,
    audit,
    keyRing,
    accessTokens,
    bearerTokens: new AccessTokenValidator(accessTokens, keyRing, revocations),
    verdicts: credentialVerdicts(revocations, keyRing, clock),
    refreshTokens,
    revocations,
    revocationFeed,
    users,
    signIn: new SignInManager({
      users,
      userStore: store.users,
      hasher,
      audit,
      clock,
      logger,
      requireConfirmedEmail: config.requireConfirmedEmail,
      twoFactor,
      lockout,
      passkeys,
      externalLogins,
      sessions,
      refreshTokens,
    }),
    sessions,
    userSessions: new UserSessions(store.userSessions, clock, new SessionIds(new OpaqueIds(keyRing.secrets.cookie, 'session ids'))),
    recentSignIn: new RecentSignIn(clock, config.reauthSeconds * 1000),
    apiKeys: new ApiKeyService(store.apiKeys, clock, random),
    redis,
    rateLimiter: new RateLimiter({ clock, logger, redis }),
    signInTurns: new ClientTurns(SIGN_INS_RUNNING_PER_CLIENT, SIGN_INS_WAITING_PER_CLIENT),
    mailer,
    mails,
    registration: new Registration({
      users,
      hasher,
      codes: store.accountCodes,
      mailer,
      mails,
      clock,
      random,
      logger,
      requireConfirmedEmail: config.requireConfirmedEmail,
      audit,
      unitOfWork: store.unitOfWork,
      onEmailConfirmed: (user) => invitationAcceptance.onConfirmation(user),
    }),
    passwordReset: new PasswordReset({
      users,
      hasher,
      codes: store.accountCodes,
      passkeys: store.passkeys,
      logins: store.externalLogins,
      mailer,
      mails,
      audit,
      revocationFeed,
      unitOfWork: store.unitOfWork,
      clock,
      random,
      requireConfirmedEmail: config.requireConfirmedEmail,
    }),
    twoFactor,
    externalLogins,
    passkeys,
    hashing,
    passwordChange: new PasswordChange({ users, audit, securityChanges, unitOfWork: store.unitOfWork }),
    signOut: new SignOut({ sessions, revocationFeed }),
    providerSignIn: providerSignIn(config, store, { audit, clock, sessions, externalLogins }),
    organizationRoles,
    activeOrganizations,
    invitationAcceptance,
  };
}

/** A provider's sign-in over the store; the providers `OIDC_<NAME>_TRUST_EMAIL` names may sign in to confirmed accounts by e-mail. */
function providerSignIn(
  config: Config,
  store: Store,
  { audit, clock, sessions, externalLogins }: Pick<Services, 'audit' | 'clock' | 'sessions' | 'externalLogins'>,
): ProviderSignIn {
  const trusted = new Set(config.oidcProviders.filter((provider) => provider.trustEmail).map((provider) => provider.name));
  const resolver = new ExternalSignIn({ logins: store.externalLogins, users: store.users, audit, clock, trustsEmail: (name) => trusted.has(name) });
  return new ProviderSignIn({ resolver, externalLogins, sessions, logins: store.externalLogins, users: store.users, audit, clock });
}

/**
 * The verdicts the request edge remembers, forgotten at every revocation event, and at once when
 * a signing key leaves this instance's ring (re-read by its own revocation, the periodic refresh
 * or the key's age), whichever this instance sees first.
 */
function credentialVerdicts(revocations: RevocationList, keyRing: KeyRing, clock: Clock): CredentialVerdicts {
  const verdicts = new CredentialVerdicts(revocations, clock);
  keyRing.onDropped((kid) => verdicts.forget({ kind: 'signing-key', subject: kid }));
  return verdicts;
}
