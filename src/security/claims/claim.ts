/** Claim types with a meaning of their own; they cannot be set as custom claims. */
export const ClaimTypes = {
  subject: 'sub',
  name: 'name',
  email: 'email',
  role: 'role',
  client: 'client',
} as const;

/** `client_id` names the client an access token was issued to (RFC 9068); a user cannot claim it. */
export const RESERVED_CLAIM_TYPES: ReadonlySet<string> = new Set([
  'sub', 'name', 'email', 'role', 'iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'typ', 'client', 'client_id', 'amr',
]);

/** One statement about a subject: a type and a string value. */
export class Claim {
  constructor(
    readonly type: string,
    readonly value: string,
  ) {}
}
