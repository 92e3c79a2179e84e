import type { SessionManager } from '../identity/sessions.ts';
import type { RevocationFeed } from '../revocation/revocation-feed.ts';

export interface SignOutOptions {
  readonly sessions: Pick<SessionManager, 'signOut'>;
  readonly revocationFeed: Pick<RevocationFeed, 'changed'>;
}

/**
 * A browser signs out: its session ends in the store (with its revocation event, in the same
 * transaction), and the end is announced so that the session's sockets close now, here and, through
 * Redis, on the other instances.
 */
export class SignOut {
  constructor(private readonly options: SignOutOptions) {}

  /** Idempotent: a token of no session (or of one already ended) changes nothing, but is still announced. */
  async signOut(token: string): Promise<void> {
    await this.options.sessions.signOut(token);
    await this.options.revocationFeed.changed();
  }
}
