/**
 * Who makes a change, as its audit event names them: a signed-in user (the account's owner or an
 * admin acting on another account), the operator at the command line, or the application's own
 * code (a seed, a job) calling `app.gatehouse`.
 */
export interface Actor {
  /** The user id of the caller; 'cli' for the operator at the command line; 'application' for the application's own code. */
  readonly by: number | 'cli' | 'application';
  /** The caller's address; none at the command line or in the application's own code. */
  readonly ip?: string | null;
}

/** The operator at the command line. */
export const CLI_OPERATOR: Actor = Object.freeze({ by: 'cli' });

/** The application's own code, when it names no user of its own as the one who made the change. */
export const APPLICATION: Actor = Object.freeze({ by: 'application' });
