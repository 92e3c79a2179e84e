import type { AuditLog } from '../audit/audit-log.ts';
import { normalizeEmail } from '../identity/normalize.ts';
import type { Actor } from '../membership/actor.ts';
import type { Clock } from '../platform/clock.ts';
import type { OrganizationInvitation, OrganizationStore, UnitOfWork, User } from '../store/ports.ts';

export interface InvitationAcceptanceOptions {
  readonly store: Pick<OrganizationStore, 'acceptInvitation' | 'acceptInvitationsTo'>;
  readonly audit: AuditLog;
  readonly clock: Clock;
  readonly unitOfWork: UnitOfWork;
}

/**
 * Invitations spent: one by its link, or every one pending for an address its new account just
 * confirmed (a person invited without an account lands in the organization on confirming). Each
 * acceptance commits with its audit events; none takes anything away, so nothing is announced.
 */
export class InvitationAcceptance {
  constructor(private readonly options: InvitationAcceptanceOptions) {}

  /** Spends the invitation with this code hash for `user`; null when it is not pending any more. */
  accept(user: User, codeHash: string, actor: Actor): Promise<OrganizationInvitation | null> {
    const { store, clock, unitOfWork } = this.options;
    return unitOfWork.atomically(async () => {
      const spent = await store.acceptInvitation({ codeHash, userId: user.id, now: clock.now() });
      if (spent !== null) await this.record(spent, user.id, actor);
      return spent;
    });
  }

  /** Every invitation pending for the user's confirmed address. */
  onConfirmation(user: User): Promise<OrganizationInvitation[]> {
    const { store, clock, unitOfWork } = this.options;
    return unitOfWork.atomically(async () => {
      const accepted = await store.acceptInvitationsTo({ normalizedEmail: normalizeEmail(user.email), userId: user.id, now: clock.now() });
      for (const invitation of accepted) await this.record(invitation, user.id, { by: user.id });
      return accepted;
    });
  }

  private async record(invitation: OrganizationInvitation, userId: number, actor: Actor): Promise<void> {
    const detail = { organizationId: invitation.organizationId, invitationId: invitation.id, roles: invitation.roles, by: actor.by };
    await this.options.audit.record('org.invitation.accepted', { userId, ip: actor.ip ?? null, detail });
    await this.options.audit.record('org.member.added', { userId, ip: actor.ip ?? null, detail });
  }
}
