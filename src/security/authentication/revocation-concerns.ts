/**
 * The kinds of revocation event Gatehouse announces to every instance (decision 0010):
 * `user` (a user's stamps changed: claims or security), `user-deleted`, `session` (cookie
 * sessions of a user ended), `family` (a refresh-token family ended; it names the family),
 * `api-key` (a key was revoked; it names the key) and `signing-key` (it names the key id).
 */
export type RevocationKind = 'user' | 'user-deleted' | 'session' | 'family' | 'api-key' | 'signing-key';

/**
 * Which revocation events may change what a scheme's credential is worth. A credential that
 * lives on (a socket's) is authenticated again through its scheme at each such event, and its
 * scheme's answer decides; at any other event it is not looked at.
 */
export interface RevocationConcerns {
  /** Events that concern the credential when they name its user (the principal's `sub`). */
  readonly ofTheUser?: readonly RevocationKind[];
  /** Events that concern every credential of the scheme, whatever they name (a key id, a family). */
  readonly ofAnySubject?: readonly RevocationKind[];
}

/** A scheme that no revocation event concerns: its credentials are re-checked at their end only. */
export const NO_REVOCATION_CONCERNS: RevocationConcerns = Object.freeze({});

/** Whether `event` concerns a credential, with `concerns`, that authenticated `subject` (null: no user). */
export function concernsCredential(concerns: RevocationConcerns, event: { readonly kind: RevocationKind; readonly subject: string }, subject: string | null): boolean {
  if (concerns.ofAnySubject?.includes(event.kind)) return true;
  return subject !== null && event.subject === subject && (concerns.ofTheUser?.includes(event.kind) ?? false);
}
