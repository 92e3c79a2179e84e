import type { RevocationFeed } from '../revocation/revocation-feed.ts';
import type { AskingSession, PresentedSession, SessionManager, SignedInSession } from './sessions.ts';

/** A security change its owner asks for: from where, and through which cookie session (renewed after it). */
export interface SelfServiceChange {
  readonly ip?: string | null;
  /** The cookie session of the request, when it carries one; null for a bearer caller. */
  readonly session?: PresentedSession | null;
}

export interface SecurityChangesOptions {
  readonly sessions: Pick<SessionManager, 'asking' | 'reissue'>;
  readonly revocationFeed: Pick<RevocationFeed, 'changed'>;
}

/**
 * What follows every security change of an account (a new password, two-factor on or off, a way
 * in removed): the store committed the change with its revocation event; this instance applies
 * it at once and tells the others (sockets and cached verdicts end everywhere), then the session
 * that asked goes on under the new security stamp. The session is read before the change ends it.
 */
export class SecurityChanges {
  constructor(private readonly options: SecurityChangesOptions) {}

  /** The session that asks, read before the change: null for none (a bearer caller) or one that no longer counts. */
  askingSession(change: SelfServiceChange): Promise<AskingSession | null> {
    return this.options.sessions.asking(change.session ?? null);
  }

  /** Announces the committed change, then re-issues the asking session (when there is one). */
  async committed(asking: AskingSession | null): Promise<SignedInSession | null> {
    await this.options.revocationFeed.changed();
    return asking === null ? null : this.options.sessions.reissue(asking);
  }
}
