import type { RevocationFeed } from '../revocation/revocation-feed.ts';

/**
 * The rules of one kind of caller of the use cases: how its revocations reach the instances, and
 * whether a change may leave the service without an admin who can sign in.
 */
export interface ChangeRules {
  /** Called after every change that refuses credentials, once it has committed with its revocation event. */
  readonly announceRevocation: () => Promise<void>;
  /**
   * Deleting, locking and taking the role `Admin` keep one holder of it who can sign in (409
   * otherwise): true for the admin API and the application. The command line keeps nobody: it
   * is the way back into a service without an admin.
   */
  readonly keepAnAdmin: boolean;
}

/**
 * A running instance (the admin API, the application): its feed applies the change here before
 * the call returns, so the next request already refuses the old credentials, and tells the others.
 */
export function runningInstanceRules(feed: RevocationFeed): ChangeRules {
  return { announceRevocation: () => feed.changed(), keepAnAdmin: true };
}

/**
 * The command line: its feed never runs (there is nothing here to refuse credentials), so it only
 * tells the running instances to read now; without Redis they find the change at their next poll.
 */
export function commandLineRules(feed: RevocationFeed): ChangeRules {
  return { announceRevocation: () => feed.announce(), keepAnAdmin: false };
}
