/**
 * Who makes a change, as its audit event names them: a signed-in user (the account's owner or an
 * admin acting on another account) or the operator at the command line.
 */
export interface Actor {
  /** The user id of the caller, or 'cli' for the operator at the command line. */
  readonly by: number | 'cli';
  /** The caller's address; none at the command line. */
  readonly ip?: string | null;
}

/** The operator at the command line. */
export const CLI_OPERATOR: Actor = Object.freeze({ by: 'cli' });
