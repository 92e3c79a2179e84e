import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import type { AuditStore, UnitOfWork } from '../store/ports.ts';

/** The security events of docs/reference/security-events.md. */
export type AuditEventType =
  | 'signin.succeeded'
  | 'signin.failed'
  | 'lockout'
  | 'twofactor.enabled'
  | 'twofactor.disabled'
  | 'password.changed'
  | 'password.reset'
  | 'refresh.reuse'
  | 'role.added'
  | 'role.removed'
  | 'user.locked'
  | 'user.unlocked'
  | 'user.deleted'
  | 'user.confirmation.resent'
  | 'apikey.created'
  | 'apikey.revoked'
  | 'key.rotated'
  | 'key.revoked'
  | 'external.linked'
  | 'external.unlinked'
  | 'external.refused'
  | 'passkey.added'
  | 'passkey.removed'
  | 'passkey.refused'
  | 'session.revoked'
  | 'sessions.revoked'
  | 'org.created'
  | 'org.updated'
  | 'org.deleted'
  | 'org.member.added'
  | 'org.member.removed'
  | 'org.member.roles'
  | 'org.invitation.created'
  | 'org.invitation.accepted'
  | 'org.invitation.revoked';

export interface AuditEntry {
  readonly userId?: number | null;
  readonly ip?: string | null;
  /** Ids, names and reasons only: never a password, code, token or key. */
  readonly detail?: Record<string, unknown> | null;
}

/** Outside any unit of work: effects run at once. */
const NO_UNIT_OF_WORK: Pick<UnitOfWork, 'afterCommit'> = { afterCommit: (effect) => effect() };

/**
 * Writes security events to the audit table and the log. Inside a unit of work the event commits
 * with the change it records; its log line and its listeners wait for that commit, so that a
 * change rolled back is neither logged nor counted.
 */
export class AuditLog {
  private readonly listeners = new Set<(type: AuditEventType) => void>();

  constructor(
    private readonly store: AuditStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly unitOfWork: Pick<UnitOfWork, 'afterCommit'> = NO_UNIT_OF_WORK,
  ) {}

  async record(type: AuditEventType, entry: AuditEntry = {}): Promise<void> {
    const event = { type, userId: entry.userId ?? null, at: this.clock.now(), ip: entry.ip ?? null, detail: entry.detail ?? null };
    await this.store.append(event);
    this.unitOfWork.afterCommit(() => {
      this.logger.info({ audit: event }, `security event ${type}`);
      for (const listener of this.listeners) listener(type);
    });
  }

  /** Hears the type of each event once it is written and committed (the metrics count them); returns the way to stop. */
  onRecorded(listener: (type: AuditEventType) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
