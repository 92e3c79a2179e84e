import type { Generated } from 'kysely';

/**
 * The tables as Kysely sees them. Times are epoch milliseconds (bigint in PostgreSQL, parsed to
 * JS numbers by the pool); booleans are integers 0/1 on both engines and become JS booleans in
 * the stores. The schema itself lives in `../migrations/`.
 */
export interface Database {
  users: UsersTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  user_claims: UserClaimsTable;
  api_keys: ApiKeysTable;
  key_ring: KeyRingTable;
  signing_keys: SigningKeysTable;
  audit: AuditTable;
  refresh_families: RefreshFamiliesTable;
  refresh_tokens: RefreshTokensTable;
  revocations: RevocationsTable;
  account_codes: AccountCodesTable;
  outbox: OutboxTable;
  sessions: SessionsTable;
  authenticator_keys: AuthenticatorKeysTable;
  recovery_codes: RecoveryCodesTable;
  one_time_codes: OneTimeCodesTable;
  external_logins: ExternalLoginsTable;
  spent_external_correlations: SpentExternalCorrelationsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_member_roles: OrganizationMemberRolesTable;
  organization_invitations: OrganizationInvitationsTable;
}

/**
 * Every table of `Database`, at run time: the names the table-prefix plugin renames (anything
 * else a query names, an alias or a table of the application, is left alone).
 */
export const gatehouseTables = [
  'users',
  'roles',
  'user_roles',
  'user_claims',
  'api_keys',
  'key_ring',
  'signing_keys',
  'audit',
  'refresh_families',
  'refresh_tokens',
  'revocations',
  'account_codes',
  'outbox',
  'sessions',
  'authenticator_keys',
  'recovery_codes',
  'one_time_codes',
  'external_logins',
  'spent_external_correlations',
  'passkeys',
  'passkey_challenges',
  'organizations',
  'organization_members',
  'organization_member_roles',
  'organization_invitations',
] as const satisfies ReadonlyArray<keyof Database>;

// A table added to `Database` but not to the list fails to compile here.
const everyTableListed: Record<Exclude<keyof Database, (typeof gatehouseTables)[number]>, never> = {};
void everyTableListed;

export interface ExternalLoginsTable {
  id: Generated<number>;
  user_id: number;
  provider: string;
  subject: string;
  created_at: number;
}

export interface SpentExternalCorrelationsTable {
  id: string;
  expires_at: number;
}

export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  backed_up: number;
  device_type: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

export interface PasskeyChallengesTable {
  id: string;
  purpose: 'registration' | 'authentication';
  user_id: number | null;
  binding: string | null;
  name: string | null;
  expires_at: number;
}

/**
 * An organization. Adopted from an application's table of the same name (migration 0016), it may
 * have more columns, which Gatehouse neither reads nor writes.
 */
export interface OrganizationsTable {
  id: Generated<number>;
  name: string;
  /** Unique. */
  slug: string;
  created_at: number;
}

export interface OrganizationMembersTable {
  organization_id: number;
  user_id: number;
  joined_at: number;
}

/** A member's organization role: one row each, gone with the membership. */
export interface OrganizationMemberRolesTable {
  organization_id: number;
  user_id: number;
  role: string;
}

export interface OrganizationInvitationsTable {
  id: Generated<number>;
  organization_id: number;
  email: string;
  normalized_email: string;
  /** JSON array of role names. */
  roles: string;
  /** SHA-256 of the code, hex; unique. */
  code_hash: string;
  invited_by: number | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  revoked_at: number | null;
}

export interface AccountCodesTable {
  id: Generated<number>;
  user_id: number;
  purpose: 'confirm-email' | 'reset-password';
  /** SHA-256 of the code; unique. */
  code_hash: string;
  /** No longer written or read (a confirmation never sets a password); emptied by migration 0011. */
  pending_password_hash: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  normalized_email: string;
  user_name: string | null;
  normalized_user_name: string | null;
  password_hash: string | null;
  email_confirmed: number;
  security_stamp: Generated<number>;
  claims_stamp: Generated<number>;
  stamp_changed_at: number;
  lockout_end: number | null;
  locked_by_admin: Generated<number>;
  access_failed_count: Generated<number>;
  created_at: number;
  two_factor_enabled: Generated<number>;
  phone_number: string | null;
  phone_confirmed: Generated<number>;
  /** The id the user had in the system it was imported from; unique. */
  external_id: string | null;
  /** Two-factor cookies of first steps begun at or before this time are spent. */
  two_factor_spent_through: number | null;
  /** The organization the user last chose; null when none (or it was deleted). */
  active_organization_id: Generated<number | null>;
  /** The language tag the user last used here (their mails'), or null. */
  language: Generated<string | null>;
}

export interface AuthenticatorKeysTable {
  user_id: number;
  /** Sealed base32 secrets. */
  active_key: string | null;
  pending_key: string | null;
  last_step: number | null;
}

export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

export interface OneTimeCodesTable {
  id: Generated<number>;
  user_id: number;
  purpose: 'two-factor-email' | 'two-factor-phone' | 'confirm-phone';
  /** HMAC-SHA-256 of the code under a key-ring secret: six digits alone would fall to a brute force of a dump. */
  code_hash: string;
  phone_number: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface RolesTable {
  id: Generated<number>;
  name: string;
}

export interface UserRolesTable {
  user_id: number;
  role_id: number;
}

export interface UserClaimsTable {
  id: Generated<number>;
  user_id: number;
  type: string;
  value: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  client: string;
  public_id: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface KeyRingTable {
  /** Always 1: the primary key is what makes concurrent first start-ups agree. */
  id: number;
  secrets: string;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  private_jwk: string;
  created_at: number;
  revoked_at: number | null;
}

export interface AuditTable {
  id: Generated<number>;
  type: string;
  user_id: number | null;
  at: number;
  ip: string | null;
  /** JSON object or null. */
  detail: string | null;
}

export interface RefreshFamiliesTable {
  id: Generated<number>;
  user_id: number;
  security_stamp: number;
  /** `SignInMethod`; null for families begun before it was recorded. */
  method: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** Null only before migration 0014 filled it in. */
  last_seen_at: number | null;
  user_agent: string | null;
  ip: string | null;
  /** The organization its access tokens are issued for; null when none (or it was deleted). */
  organization_id: Generated<number | null>;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  family_id: number;
  parent_id: number | null;
  /** SHA-256 of the token, hex; unique. */
  token_hash: string;
  created_at: number;
  used_at: number | null;
  grace_sealed: string | null;
  grace_until: number | null;
}

export interface RevocationsTable {
  id: Generated<number>;
  /** 'user' | 'user-deleted' | 'session' | 'family' | 'api-key' | 'signing-key'. */
  kind: string;
  subject: string;
  claims_stamp: number | null;
  security_stamp: number | null;
  at: number;
}

export interface SessionsTable {
  id: Generated<number>;
  /** SHA-256 of the session token, hex; unique. */
  token_hash: string;
  user_id: number;
  security_stamp: number;
  persistent: number;
  /** `SignInMethod`; null for sessions opened before it was recorded. */
  method: string | null;
  created_at: number;
  expires_at: number;
  /** Null only before migration 0014 filled it in. */
  last_seen_at: number | null;
  user_agent: string | null;
  ip: string | null;
  /** The organization its principal carries; null when none (or it was deleted). */
  organization_id: Generated<number | null>;
}

export interface OutboxTable {
  id: Generated<number>;
  channel: 'mail' | 'sms';
  recipient: string;
  /** Null for SMS. */
  subject: string | null;
  text: string;
  html: string | null;
  created_at: number;
}
