import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import type { Phrase } from '../i18n/phrase.ts';
import type { Clock } from '../platform/clock.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import type { ActiveOrganization } from '../organizations/active-organization.ts';
import { ORGANIZATION_CLAIM } from '../organizations/organization-roles.ts';
import type { User } from '../store/ports.ts';
import type { KeyRing } from './key-ring.ts';
import { SIGNING_ALGORITHM } from './signing-key.ts';
import { TOKEN_REFUSALS, tokenRefusalReason } from '../security/authentication/schemes/bearer/token-refusal.ts';

/** The JWT claim that carries the user's claims-stamp version (see docs/reference/tokens.md). */
export const STAMP_CLAIM = 'gh_ver';
/**
 * The JWT claim that names the refresh family a token was issued from (docs/reference/tokens.md):
 * ending the family refuses its access tokens. Gatehouse's own name, like `gh_ver`, so that no
 * custom claim of a user is taken for it. Tokens issued outside a family carry none.
 */
export const FAMILY_CLAIM = 'gh_sid';
/**
 * OpenID Connect's claim for when the user signed in (seconds since the epoch): the sign-in that
 * began the token's refresh family, which every refresh keeps (a refresh proves nothing new).
 * Changes that add a way in read it (`RecentSignIn`); a token without it is never recent.
 */
export const AUTH_TIME_CLAIM = 'auth_time';
/** RFC 9068's media type for access tokens; other JWTs (ID tokens, …) are refused as bearer tokens. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';
/**
 * RFC 9068's `client_id` of every token this service issues: they all go to its own first-party
 * clients (the password grant at `/auth/token` and its refreshes), which register nowhere
 * (decision 0034).
 */
export const FIRST_PARTY_CLIENT_ID = 'gatehouse-first-party';
/** Allowed `exp`/`nbf` drift between machines. */
export const CLOCK_SKEW_SECONDS = 30;
/** Longer "tokens" are refused before any parsing. */
const MAX_TOKEN_LENGTH = 8192;

export interface AccessTokenOptions {
  readonly keyRing: KeyRing;
  readonly clock: Clock;
  readonly issuer: string;
  readonly audience: string;
  readonly lifetimeSeconds: number;
}

export interface IssuedAccessToken {
  readonly token: string;
  readonly expiresIn: number;
}

/** A token whose signature and claims checked out. */
export interface VerifiedAccessToken {
  readonly valid: true;
  readonly principal: ClaimsPrincipal;
  readonly userId: number;
  /** The user's claims stamp when the token was issued. */
  readonly stamp: number;
  /** Epoch ms. */
  readonly expiresAt: number;
  /** The key that signed it. */
  readonly kid: string;
  /** The refresh family it was issued from, or null for a token issued outside one. */
  readonly familyId: number | null;
  /** When the user signed in (epoch ms, whole seconds: `auth_time`), or null for a token that does not say. */
  readonly authTime: number | null;
}

/** A refusal's `reason` is a phrase of the catalogues (`BearerTokenValidation`). */
export type AccessTokenValidation = VerifiedAccessToken | { readonly valid: false; readonly reason: Phrase };

/**
 * Issues the service's access tokens (ES256 JWTs, `typ: at+jwt`) and verifies their signature
 * and claims. Whether a verified token still counts (revocation) is `AccessTokenValidator`'s call.
 */
export class AccessTokens {
  constructor(private readonly options: AccessTokenOptions) {}

  /**
   * `familyId`: the refresh family the token comes from, whose end refuses it. `authTime`: when
   * the user signed in (epoch ms); a refresh passes its family's start, and a token issued
   * without it is issued right after a sign-in (now). `organization`: the active one, whose id and
   * roles the token carries (see `userPrincipal`).
   */
  async issue(
    user: User,
    { familyId, authTime, organization }: { familyId?: number; authTime?: number; organization?: ActiveOrganization | null } = {},
  ): Promise<IssuedAccessToken> {
    const { keyRing, clock, issuer, audience, lifetimeSeconds } = this.options;
    const key = keyRing.current;
    const now = Math.floor(clock.now() / 1000);
    const expiresIn = Math.max(1, Math.round(lifetimeSeconds));
    const signedIn = authTime === undefined ? now : Math.min(now, Math.floor(authTime / 1000));
    // Always set, to a family id or to nothing: never a custom claim stored before the name was reserved.
    const claims = { ...payloadFor(user, organization), [FAMILY_CLAIM]: familyId, [AUTH_TIME_CLAIM]: signedIn, client_id: FIRST_PARTY_CLIENT_ID };
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(String(user.id))
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + expiresIn)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(await key.signKey());
    return { token, expiresIn };
  }

  async verify(token: string): Promise<AccessTokenValidation> {
    if (token.length > MAX_TOKEN_LENGTH) return { valid: false, reason: TOKEN_REFUSALS.malformed };
    const { keyRing, clock, issuer, audience } = this.options;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, (header: ProtectedHeaderParameters) => this.keyFor(header), {
        algorithms: [SIGNING_ALGORITHM],
        issuer,
        audience,
        typ: ACCESS_TOKEN_TYPE,
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: new Date(clock.now()),
        requiredClaims: ['sub', 'exp', 'iat', 'nbf', 'jti', STAMP_CLAIM],
      });
      if (payload.iat! > Math.floor(clock.now() / 1000) + CLOCK_SKEW_SECONDS) return { valid: false, reason: TOKEN_REFUSALS.notYetValid };
      // A token living longer than this service issues was not issued by it as configured.
      if (payload.exp! - payload.iat! > this.options.lifetimeSeconds + CLOCK_SKEW_SECONDS) return { valid: false, reason: TOKEN_REFUSALS.lifetimeTooLong };
      return readPayload(payload, protectedHeader.kid!);
    } catch (error) {
      return { valid: false, reason: tokenRefusalReason(error) };
    }
  }

  private keyFor(header: ProtectedHeaderParameters): CryptoKey {
    const key = typeof header.kid === 'string' ? this.options.keyRing.verificationKey(header.kid) : undefined;
    if (!key) throw new joseErrors.JWKSNoMatchingKey();
    return key.verifyKey;
  }
}

/**
 * The user's claims, with the active organization's id and roles when there is one. Where
 * organizations are on (`organization` given, null for none active) only a membership supplies
 * `org_id`; where they are off (undefined) a custom `org_id` travels as any custom claim.
 */
function payloadFor(user: User, organization: ActiveOrganization | null | undefined): JWTPayload {
  const custom: Record<string, string | string[]> = {};
  for (const { type, value } of user.claims) {
    const existing = custom[type];
    custom[type] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  if (organization !== undefined) delete custom[ORGANIZATION_CLAIM];
  if (organization) custom[ORGANIZATION_CLAIM] = String(organization.id);
  return {
    ...custom,
    name: user.userName ?? user.email,
    email: user.email,
    role: organization ? withOrganizationRoles(user.roles, organization.roles) : [...user.roles],
    [STAMP_CLAIM]: user.claimsStamp,
  };
}

/** The user's own roles, then the organization's the user lacks: each role once. */
function withOrganizationRoles(own: readonly string[], organization: readonly string[]): string[] {
  const roles = new Set(own);
  for (const role of organization) roles.add(role);
  return [...roles];
}

/**
 * JWT members that describe the token itself and become no claim of the principal: a bearer
 * caller has the claims a cookie caller has.
 */
const TOKEN_MEMBERS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'typ', 'client_id', STAMP_CLAIM, FAMILY_CLAIM, AUTH_TIME_CLAIM]);

function readPayload(payload: JWTPayload, kid: string): AccessTokenValidation {
  const sub = payload.sub!;
  const stamp = payload[STAMP_CLAIM];
  const family = payload[FAMILY_CLAIM];
  const familyId = family === undefined ? null : family;
  const wellFormed =
    /^[1-9]\d{0,15}$/.test(sub) &&
    typeof stamp === 'number' &&
    Number.isInteger(stamp) &&
    (familyId === null || (typeof familyId === 'number' && Number.isSafeInteger(familyId) && familyId > 0));
  if (!wellFormed) return { valid: false, reason: TOKEN_REFUSALS.malformed };
  const principal = principalOf(payload, 'Bearer');
  const authTime = payload[AUTH_TIME_CLAIM];
  // Tokens issued before the claim existed carry none: they prove no recent sign-in, and are otherwise valid.
  const signedInAt = typeof authTime === 'number' && Number.isSafeInteger(authTime) && authTime > 0 ? authTime * 1000 : null;
  return { valid: true, principal, userId: Number(sub), stamp, expiresAt: payload.exp! * 1000, kid, familyId: familyId as number | null, authTime: signedInAt };
}

/**
 * The principal of a signed-in user, with the claims an access token would carry (`sub`, `name`,
 * `email`, `role`, custom claims, the active organization's `org_id` and roles): cookie sessions
 * build theirs here, so both schemes agree.
 */
export function userPrincipal(user: User, authenticationType: string, organization?: ActiveOrganization | null): ClaimsPrincipal {
  return principalOf({ sub: String(user.id), ...payloadFor(user, organization) }, authenticationType);
}

function principalOf(payload: JWTPayload, authenticationType: string): ClaimsPrincipal {
  const claims: Claim[] = [];
  for (const [type, value] of Object.entries(payload)) {
    if (TOKEN_MEMBERS.has(type)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') claims.push(new Claim(type, String(item)));
    }
  }
  return new ClaimsPrincipal([new ClaimsIdentity(claims, authenticationType)]);
}

