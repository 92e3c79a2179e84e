export { Claim, ClaimTypes, RESERVED_CLAIM_TYPES } from './claim.ts';
export { ClaimsIdentity } from './claims-identity.ts';
export { ClaimsPrincipal } from './claims-principal.ts';
