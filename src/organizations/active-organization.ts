import { GatehouseError } from '../security/errors.ts';
import type { OrganizationStore, RefreshFamily, User } from '../store/ports.ts';
import type { OrganizationRoles } from './organization-roles.ts';

/** The organization a credential acts in, and the caller's organization roles there: what the principal carries. */
export interface ActiveOrganization {
  readonly id: number;
  /** Declared, never global: the principal's extra `role` claims. */
  readonly roles: readonly string[];
}

/**
 * The active organization of each credential (decision 0092): read where a principal is built (a
 * cookie session's request, an access token's issue), and chosen by the user for a session, a
 * new token or a refresh, each choice remembered for the next sign-in. Only a stored membership
 * makes one, so a member removed, or an organization deleted, is gone from the next principal
 * whatever the credential still names.
 */
export class ActiveOrganizations {
  constructor(
    private readonly store: Pick<OrganizationStore, 'membership' | 'chooseActive'>,
    private readonly roles: OrganizationRoles,
  ) {}

  /** The user's membership of `organizationId` as a principal carries it; null for none (or no organization named). */
  async current(userId: number, organizationId: number | null): Promise<ActiveOrganization | null> {
    if (organizationId === null) return null;
    const membership = await this.store.membership(organizationId, userId);
    if (membership === null) return null;
    return { id: organizationId, roles: this.roles.carried(membership.roles) };
  }

  /**
   * The organization of a new token family: `asked` when given (null: none), which becomes the
   * user's remembered choice; else the one the user chose last. `GH_NOT_A_MEMBER` for an
   * organization the user is not a member of.
   */
  forNewCredential(user: User, asked: number | null | undefined): Promise<ActiveOrganization | null> {
    if (asked === undefined) return this.current(user.id, user.activeOrganizationId);
    return this.choose(user.id, asked, {}, notAMember);
  }

  /** A refresh that asks for `asked` (null: none): the family, and the user's remembered choice, switch to it. */
  switchFamily(family: RefreshFamily, asked: number | null): Promise<ActiveOrganization | null> {
    return this.choose(family.userId, asked, { familyId: family.id }, notAMember);
  }

  /** The cookie session switches to `asked` (null: none), remembered; 404 for an organization the user is not a member of. */
  async switchSession(userId: number, sessionId: number, asked: number | null): Promise<void> {
    await this.choose(userId, asked, { sessionId }, () => GatehouseError.notFound((m) => m.errorNotYourOrganization));
  }

  private async choose(
    userId: number,
    asked: number | null,
    credential: { sessionId?: number; familyId?: number },
    refusal: () => GatehouseError,
  ): Promise<ActiveOrganization | null> {
    const active = await this.current(userId, asked);
    if (asked !== null && active === null) throw refusal();
    // The store checks the membership again as it writes: a removal in between writes nothing.
    if (!(await this.store.chooseActive({ userId, organizationId: asked, ...credential }))) throw refusal();
    return active;
  }
}

function notAMember(): GatehouseError {
  return new GatehouseError('GH_NOT_A_MEMBER', (m) => m.errorNotYourOrganization);
}
