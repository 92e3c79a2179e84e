import type { JWTPayload } from 'jose';
import { Claim, ClaimTypes } from '../../../claims/claim.ts';
import { ClaimsIdentity } from '../../../claims/claims-identity.ts';
import { ClaimsPrincipal } from '../../../claims/claims-principal.ts';
import type { ClaimSource } from './options.ts';

/** Members that describe the token itself, not its subject: they become no claim. */
const TOKEN_MEMBERS = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti']);
/** Space-delimited lists (RFC 8693's `scope`, Entra ID's `scp`): one claim per value. */
const SPACE_DELIMITED = new Set(['scope', 'scp']);

/**
 * The principal of a verified external token. Its one identity's authentication type is the
 * scheme's name. Top-level claims with string, number or boolean values (or lists of them)
 * become claims as they are, `sub` included (the principal's subject); `scope` and `scp` are
 * split at spaces. `name` and `role` come only from the configured sources, so an issuer whose
 * roles live elsewhere (Keycloak's `realm_access.roles`) gives `isInRole` and role policies the
 * same meaning as Gatehouse's own tokens.
 */
export function principalOf(payload: JWTPayload, scheme: string, sources: { readonly roleClaim: ClaimSource; readonly nameClaim: ClaimSource }): ClaimsPrincipal {
  const claims: Claim[] = [];
  const name = valuesOf(payload, sources.nameClaim)[0];
  if (name !== undefined) claims.push(new Claim(ClaimTypes.name, name));
  for (const [type, value] of Object.entries(payload)) {
    if (TOKEN_MEMBERS.has(type) || type === ClaimTypes.name || type === ClaimTypes.role) continue;
    const items = primitives(value);
    const values = SPACE_DELIMITED.has(type) ? items.flatMap((item) => item.split(' ').filter((scope) => scope !== '')) : items;
    for (const item of values) claims.push(new Claim(type, item));
  }
  for (const role of new Set(valuesOf(payload, sources.roleClaim))) claims.push(new Claim(ClaimTypes.role, role));
  return new ClaimsPrincipal([new ClaimsIdentity(claims, scheme)]);
}

/** The string values a source names in the payload (none when absent or of another shape). */
export function valuesOf(payload: JWTPayload, source: ClaimSource): string[] {
  if (typeof source === 'function') return primitives(source(payload));
  const names = typeof source === 'string' ? [source] : source;
  return names.flatMap((name) => primitives(claimAt(payload, name)));
}

/** The claim of that name, or else the member at that dotted path (`realm_access.roles`). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const key of name.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function primitives(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean' ? [String(item)] : []));
}
