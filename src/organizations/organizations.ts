import type { AuditEventType, AuditLog } from '../audit/audit-log.ts';
import { accountCodeHash, isAccountCodeShape, newAccountCode } from '../identity/account-codes.ts';
import { BUILT_IN_MAILS, type Mails } from '../identity/account-mail.ts';
import { isValidEmail, normalizeEmail } from '../identity/normalize.ts';
import type { Phrase } from '../i18n/phrase.ts';
import { type Actor, APPLICATION } from '../membership/actor.ts';
import type { ChangeRules } from '../membership/change-rules.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from 'pino';
import type { Mailer } from '../platform/mail/mailer.ts';
import { sendNotice } from '../platform/mail/send-notice.ts';
import { cryptoRandom, type Random } from '../platform/random.ts';
import { GatehouseError } from '../security/errors.ts';
import {
  type Organization,
  type OrganizationInvitation,
  type OrganizationMember,
  type OrganizationStore,
  type OrganizationSummary,
  type OwnerKeepingChange,
  StoreConflictError,
  type UnitOfWork,
  type User,
  type UserStore,
} from '../store/ports.ts';
import type { InvitationAcceptance } from './invitation-acceptance.ts';
import { ORG_ADMIN, ORG_OWNER, SUPER_ADMIN_ROLE, type OrganizationRoles } from './organization-roles.ts';
import { isValidSlug, slugCandidate, slugFromName } from './organization-slug.ts';
import { OrganizationStanding } from './organization-standing.ts';

/** Invitation links work for 7 days. */
export const INVITATION_MS = 7 * 24 * 3_600_000;
/** Longer names are refused: a name is a label, not a document. */
export const MAX_ORGANIZATION_NAME_LENGTH = 200;
/** After this many taken candidates (`acme`, `acme-2`, …) a slug made from a name gets random letters instead. */
const SLUG_ATTEMPTS = 20;

export interface OrganizationsOptions {
  readonly store: OrganizationStore;
  readonly users: Pick<UserStore, 'findById' | 'findByNormalizedEmail'>;
  readonly audit: AuditLog;
  readonly clock: Clock;
  /** @default the CSPRNG */
  readonly random?: Random;
  readonly mailer: Mailer;
  /** The invitation's mail, in the application's words. @default the built-in one */
  readonly mails?: Mails;
  readonly logger: Pick<Logger, 'error'>;
  readonly rules: ChangeRules;
  readonly unitOfWork: UnitOfWork;
  readonly roles: OrganizationRoles;
  /** `ORGANIZATIONS_SELF_SERVICE`: any confirmed user may create an organization. */
  readonly selfService: boolean;
  readonly invitations: InvitationAcceptance;
}

/** A signed-in user acting on organizations, from where. */
export interface OrganizationCaller {
  readonly userId: number;
  readonly ip?: string | null;
}

/** One of the caller's organizations, as `GET /account/organizations` lists it. */
export interface CallerOrganization extends Organization {
  readonly roles: readonly string[];
}

/** What an invitation link shows before it is accepted. */
export interface InvitationPreview {
  readonly organization: Pick<Organization, 'id' | 'name'>;
  readonly email: string;
  readonly roles: readonly string[];
}

/**
 * Organizations (docs/organizations.md): created, changed and deleted, their members and their
 * organization roles, and invitations by mail. Each change checks the caller's standing in that
 * organization, commits with its audit event in one transaction and, when it takes something away
 * from a member (a claims change), is then announced, so that the member's tokens are refused and
 * sessions and sockets re-read on every instance within seconds.
 */
export class Organizations {
  constructor(private readonly options: OrganizationsOptions) {}

  /** The declared organization roles, in order. */
  get declaredRoles(): readonly string[] {
    return this.options.roles.declared;
  }

  /**
   * A new organization whose creator becomes a member with `OrgOwner` and `OrgAdmin`: for a
   * `SuperAdmin`, or any confirmed user under `ORGANIZATIONS_SELF_SERVICE`.
   */
  async create(caller: OrganizationCaller, input: { name: string; slug?: string | undefined }): Promise<Organization> {
    const user = await this.signedInUser(caller);
    const allowed = user.roles.includes(SUPER_ADMIN_ROLE) || (this.options.selfService && user.emailConfirmed);
    if (!allowed) throw forbidden((m) => m.errorOrganizationCreateForbidden({ role: SUPER_ADMIN_ROLE }));
    return this.createOwnedBy(user.id, input, actorOf(caller));
  }

  /** A new organization owned by `ownerId`, whoever asks (the command line, the application's own code). */
  async createOwnedBy(ownerId: number, input: { name: string; slug?: string | undefined }, actor: Actor = APPLICATION): Promise<Organization> {
    const name = validName(input.name);
    if (input.slug !== undefined && !isValidSlug(input.slug)) throw slugRefused();
    if ((await this.options.users.findById(ownerId)) === null) throw GatehouseError.notFound((m) => m.errorOrganizationOwnerUnknown);
    const owner = { userId: ownerId, roles: [ORG_ADMIN, ORG_OWNER] };
    const organization = await this.withFreeSlug(name, input.slug, (slug) =>
      this.options.unitOfWork.atomically(async () => {
        const created = await this.options.store.create({ name, slug, createdAt: this.options.clock.now() }, owner);
        await this.record('org.created', created.id, actor, ownerId, { name: created.name, slug: created.slug });
        return created;
      }),
    );
    return organization;
  }

  /**
   * The organization, whoever asks: for the application's own routes, which then check their
   * policy on it (`organizationAdmin()`, …). Null for an unknown one.
   */
  find(organizationId: number): Promise<Organization | null> {
    return this.options.store.findById(organizationId);
  }

  /** Every organization with its member count (the command line, an admin's view). */
  list(): Promise<OrganizationSummary[]> {
    return this.options.store.list();
  }

  /** The user's organizations with the user's roles there. */
  async listForUser(userId: number): Promise<CallerOrganization[]> {
    const memberships = await this.options.store.listForUser(userId);
    return memberships.map(({ organization, roles }) => ({ ...organization, roles }));
  }

  /** The organization, for a member or one who sees every organization; 404 otherwise (nothing told). */
  async get(caller: OrganizationCaller, organizationId: number): Promise<Organization> {
    const { organization } = await this.visible(caller, organizationId);
    return organization;
  }

  /** Renames it or changes its slug: `OrgAdmin` of it. */
  async update(caller: OrganizationCaller, organizationId: number, changes: { name?: string | undefined; slug?: string | undefined }): Promise<Organization> {
    const { standing } = await this.visible(caller, organizationId);
    if (!standing.manages) throw forbidden((m) => m.errorOrganizationChangeForbidden({ role: ORG_ADMIN }));
    const update = {
      ...(changes.name === undefined ? {} : { name: validName(changes.name) }),
      ...(changes.slug === undefined ? {} : { slug: changes.slug }),
    };
    if (update.slug !== undefined && !isValidSlug(update.slug)) throw slugRefused();
    return this.options.unitOfWork.atomically(async () => {
      const updated = await this.options.store.update(organizationId, update).catch(slugConflict);
      if (updated === null) throw unknownOrganization();
      await this.record('org.updated', organizationId, actorOf(caller), caller.userId, update);
      return updated;
    });
  }

  /** Deletes it, every membership and invitation with it: `OrgOwner` of it, or `SuperAdmin`. */
  async delete(caller: OrganizationCaller, organizationId: number): Promise<void> {
    const { standing } = await this.visible(caller, organizationId);
    if (!standing.owns) throw forbidden((m) => m.errorOrganizationDeleteForbidden({ role: ORG_OWNER }));
    await this.deleteAs(organizationId, actorOf(caller));
  }

  /** Deletes it whoever asks (the command line, the application); false for an unknown organization. */
  async deleteAs(organizationId: number, actor: Actor = APPLICATION): Promise<boolean> {
    const deleted = await this.options.unitOfWork.atomically(async () => {
      if (!(await this.options.store.delete(organizationId, this.options.clock.now()))) return false;
      await this.record('org.deleted', organizationId, actor, typeof actor.by === 'number' ? actor.by : null);
      return true;
    });
    // Every member's tokens carrying it are refused, their sessions re-read.
    if (deleted) await this.options.rules.announceRevocation();
    return deleted;
  }

  /** The members with their roles: for a member, or one who sees every organization. */
  async members(caller: OrganizationCaller, organizationId: number): Promise<OrganizationMember[]> {
    await this.visible(caller, organizationId);
    return this.options.store.listMembers(organizationId);
  }

  /**
   * Replaces a member's organization roles: `OrgAdmin` of it, and `OrgOwner` to grant or take
   * `OrgOwner`. 404 when the user is not a member, 409 when it would leave no `OrgOwner`.
   */
  async setMemberRoles(caller: OrganizationCaller, organizationId: number, userId: number, roles: readonly string[]): Promise<OrganizationMember> {
    const wanted = this.declared(roles);
    const { standing } = await this.visible(caller, organizationId);
    if (!standing.manages) throw forbidden((m) => m.errorMemberRolesForbidden({ role: ORG_ADMIN }));
    const current = await this.options.store.membership(organizationId, userId);
    if (current === null) throw notAMember();
    if (current.roles.includes(ORG_OWNER) !== wanted.includes(ORG_OWNER) && !standing.owns) {
      throw forbidden((m) => m.errorOwnerRoleForbidden({ role: ORG_OWNER }));
    }
    const outcome = await this.options.unitOfWork.atomically(async () => {
      const change = await this.options.store.setMemberRoles({ organizationId, userId, roles: wanted, ownerRole: ORG_OWNER, now: this.options.clock.now() });
      if (change === 'done') await this.record('org.member.roles', organizationId, actorOf(caller), userId, { roles: wanted, previous: current.roles });
      return change;
    });
    await this.settle(outcome);
    const member = (await this.options.store.listMembers(organizationId)).find((each) => each.userId === userId);
    if (member === undefined) throw notAMember();
    return member;
  }

  /**
   * Removes a member: `OrgAdmin` of it (`OrgOwner` to remove one who holds `OrgOwner`), or the
   * member themself, leaving. 404 when the user is not a member, 409 for the last `OrgOwner`.
   */
  async removeMember(caller: OrganizationCaller, organizationId: number, userId: number): Promise<void> {
    const { standing } = await this.visible(caller, organizationId);
    const leaving = userId === caller.userId;
    if (!leaving && !standing.manages) throw forbidden((m) => m.errorMemberRemoveForbidden({ role: ORG_ADMIN }));
    const current = await this.options.store.membership(organizationId, userId);
    if (current === null) throw notAMember();
    if (!leaving && current.roles.includes(ORG_OWNER) && !standing.owns) throw forbidden((m) => m.errorOwnerRemoveForbidden({ role: ORG_OWNER }));
    await this.removeAs(organizationId, userId, actorOf(caller));
  }

  /** Removes a member whoever asks (the command line, the application), keeping an `OrgOwner`. */
  async removeAs(organizationId: number, userId: number, actor: Actor = APPLICATION): Promise<void> {
    const outcome = await this.options.unitOfWork.atomically(async () => {
      const change = await this.options.store.removeMember({ organizationId, userId, ownerRole: ORG_OWNER, now: this.options.clock.now() });
      if (change === 'done') await this.record('org.member.removed', organizationId, actor, userId);
      return change;
    });
    await this.settle(outcome);
  }

  /**
   * Makes a user a member with `roles` (added to theirs when a member already), whoever asks (the
   * command line, the application): no existing credential changes. 404 for an unknown
   * organization or user.
   */
  async addMember(organizationId: number, userId: number, roles: readonly string[], actor: Actor = APPLICATION): Promise<void> {
    const wanted = this.declared(roles);
    await this.options.unitOfWork.atomically(async () => {
      const outcome = await this.options.store.addMember({ organizationId, userId, roles: wanted, joinedAt: this.options.clock.now() });
      if (outcome === 'absent') throw GatehouseError.notFound((m) => m.errorOrganizationOrUserUnknown);
      if (outcome !== 'unchanged') await this.record('org.member.added', organizationId, actor, userId, { roles: wanted });
    });
  }

  /**
   * Invites `email` with `roles` (`OrgOwner` only by an `OrgOwner`): a mail with a single-use link
   * (`link(code)`), working for 7 days; an older invitation to the same address stops working.
   */
  async invite(
    caller: OrganizationCaller,
    organizationId: number,
    input: { email: string; roles: readonly string[] },
    link: (code: string) => string,
    language?: string,
  ): Promise<OrganizationInvitation> {
    const roles = this.declared(input.roles);
    const email = input.email.trim();
    if (!isValidEmail(email)) throw GatehouseError.validation({ email: [(m) => m.errorEmailNotValid] });
    const { standing, organization } = await this.visible(caller, organizationId);
    if (!standing.manages) throw forbidden((m) => m.errorInviteForbidden({ role: ORG_ADMIN }));
    if (roles.includes(ORG_OWNER) && !standing.owns) throw forbidden((m) => m.errorInviteOwnerForbidden({ role: ORG_OWNER }));
    const { store, clock, random = cryptoRandom, unitOfWork } = this.options;
    const code = newAccountCode(random);
    const now = clock.now();
    const invitation = await unitOfWork.atomically(async () => {
      const created = await store.createInvitation({
        organizationId,
        email,
        normalizedEmail: normalizeEmail(email),
        roles,
        codeHash: accountCodeHash(code),
        invitedBy: caller.userId,
        createdAt: now,
        expiresAt: now + INVITATION_MS,
      });
      await this.record('org.invitation.created', organizationId, actorOf(caller), caller.userId, { invitationId: created.id, roles });
      return created;
    });
    const { mailer, mails = BUILT_IN_MAILS, logger } = this.options;
    await sendNotice(mailer, logger, () => mails.organizationInvitation({ email, organizationName: organization.name, roles, code, link: link(code) }, language));
    return invitation;
  }

  /** The pending invitations: `OrgAdmin` of it. */
  async invitations(caller: OrganizationCaller, organizationId: number): Promise<OrganizationInvitation[]> {
    const { standing } = await this.visible(caller, organizationId);
    if (!standing.manages) throw forbidden((m) => m.errorInvitationsForbidden({ role: ORG_ADMIN }));
    return this.options.store.listPendingInvitations(organizationId, this.options.clock.now());
  }

  /** Revokes a pending invitation: `OrgAdmin` of it; 404 when there is no such pending invitation. */
  async revokeInvitation(caller: OrganizationCaller, organizationId: number, invitationId: number): Promise<void> {
    const { standing } = await this.visible(caller, organizationId);
    if (!standing.manages) throw forbidden((m) => m.errorInvitationRevokeForbidden({ role: ORG_ADMIN }));
    await this.options.unitOfWork.atomically(async () => {
      if (!(await this.options.store.revokeInvitation(organizationId, invitationId, this.options.clock.now()))) throw unknownInvitation();
      await this.record('org.invitation.revoked', organizationId, actorOf(caller), caller.userId, { invitationId });
    });
  }

  /** What the link shows: its organization, address and roles; 404 for an unknown, used, revoked or expired one. */
  async preview(code: string): Promise<InvitationPreview> {
    const found = await this.pending(code);
    const { invitation, organization } = found;
    return { organization: { id: organization.id, name: organization.name }, email: invitation.email, roles: invitation.roles };
  }

  /**
   * Accepts the invitation as the signed-in user, whose confirmed e-mail must be the
   * invitation's (403 `GH_INVITATION_EMAIL_MISMATCH` otherwise, the invitation left usable):
   * a member with its roles. 404 for an unknown, used, revoked or expired one.
   */
  async accept(caller: OrganizationCaller, code: string): Promise<number> {
    const user = await this.signedInUser(caller);
    const { invitation } = await this.pending(code);
    if (!user.emailConfirmed || normalizeEmail(user.email) !== invitation.normalizedEmail) {
      throw new GatehouseError('GH_INVITATION_EMAIL_MISMATCH', (m) => m.errorInvitationEmailMismatch);
    }
    return this.acceptAs(user, code, actorOf(caller));
  }

  private async acceptAs(user: User, code: string, actor: Actor): Promise<number> {
    const accepted = await this.options.invitations.accept(user, accountCodeHash(code), actor);
    if (accepted === null) throw unknownInvitation();
    return accepted.organizationId;
  }

  private async pending(code: string): Promise<{ invitation: OrganizationInvitation; organization: Organization }> {
    if (!isAccountCodeShape(code)) throw unknownInvitation();
    const found = await this.options.store.findInvitation(accountCodeHash(code), this.options.clock.now());
    if (found === null) throw unknownInvitation();
    return found;
  }

  /** The organization and the caller's standing in it; 404 when it is unknown or the caller may not know of it. */
  private async visible(caller: OrganizationCaller, organizationId: number): Promise<{ organization: Organization; standing: OrganizationStanding }> {
    const user = await this.signedInUser(caller);
    const [organization, membership] = await Promise.all([
      this.options.store.findById(organizationId),
      this.options.store.membership(organizationId, user.id),
    ]);
    const standing = new OrganizationStanding(user, membership);
    if (organization === null || !standing.sees) throw unknownOrganization();
    return { organization, standing };
  }

  private async signedInUser(caller: OrganizationCaller): Promise<User> {
    const user = await this.options.users.findById(caller.userId);
    // The credential outlived its user by a moment: nothing to act for.
    if (user === null) throw new GatehouseError('GH_UNAUTHENTICATED', (m) => m.errorAccountGone);
    return user;
  }

  /** The roles as asked, each once, all declared: 400 naming the others. */
  private declared(roles: readonly string[]): string[] {
    const undeclared = this.options.roles.undeclared(roles);
    if (undeclared.length > 0) {
      const { declaredRoles: declared } = this;
      throw GatehouseError.validation({ roles: [(m) => m.errorOrganizationRoleUndeclared({ undeclared, declared })] });
    }
    return [...new Set(roles)];
  }

  /** Picks the slug (the one asked for, else the name's first free candidate) and runs `create` with it. */
  private async withFreeSlug(name: string, asked: string | undefined, create: (slug: string) => Promise<Organization>): Promise<Organization> {
    if (asked !== undefined) return create(asked).catch(slugConflict);
    const base = slugFromName(name);
    for (let attempt = 1; attempt <= SLUG_ATTEMPTS; attempt += 1) {
      const slug = slugCandidate(base, attempt);
      if (await this.options.store.slugTaken(slug)) continue;
      try {
        return await create(slug);
      } catch (error) {
        // Taken meanwhile by a concurrent create: the next candidate.
        if (!(error instanceof StoreConflictError && error.field === 'slug')) throw error;
      }
    }
    return create(slugCandidate(`${base.slice(0, 48)}-${(this.options.random ?? cryptoRandom).bytes(4).toString('hex')}`, 1)).catch(slugConflict);
  }

  /** The answer of a change that must keep an owner, once committed: announced when done. */
  private async settle(outcome: OwnerKeepingChange): Promise<void> {
    if (outcome === 'absent') throw notAMember();
    if (outcome === 'last-owner') throw new GatehouseError('GH_CONFLICT', (m) => m.errorLastOwner({ role: ORG_OWNER }));
    await this.options.rules.announceRevocation();
  }

  private record(type: OrganizationEventType, organizationId: number, actor: Actor, userId: number | null, detail: Record<string, unknown> = {}): Promise<void> {
    return this.options.audit.record(type, { userId, ip: actor.ip ?? null, detail: { organizationId, ...detail, by: actor.by } });
  }
}

/** The security events of organizations, each with `detail.organizationId`. */
type OrganizationEventType = Extract<AuditEventType, `org.${string}`>;

/** The caller as the audit trail names them. */
function actorOf(caller: OrganizationCaller): Actor {
  return { by: caller.userId, ip: caller.ip ?? null };
}

/** Names as given, trimmed: 1 to 200 characters. */
function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ORGANIZATION_NAME_LENGTH) {
    throw GatehouseError.validation({ name: [(m) => m.errorOrganizationNameLength({ maxLength: MAX_ORGANIZATION_NAME_LENGTH })] });
  }
  return trimmed;
}

function slugRefused(): GatehouseError {
  return GatehouseError.validation({ slug: [(m) => m.errorSlugRule] });
}

function slugConflict(error: unknown): never {
  if (error instanceof StoreConflictError && error.field === 'slug') {
    throw new GatehouseError('GH_CONFLICT', (m) => m.errorSlugTaken, { errors: { slug: [(m) => m.errorSlugTakenField] } });
  }
  throw error;
}

function forbidden(detail: Phrase): GatehouseError {
  return new GatehouseError('GH_FORBIDDEN', detail);
}

function unknownOrganization(): GatehouseError {
  return GatehouseError.notFound((m) => m.errorOrganizationUnknown);
}

function notAMember(): GatehouseError {
  return GatehouseError.notFound((m) => m.errorNotAMember);
}

function unknownInvitation(): GatehouseError {
  return GatehouseError.notFound((m) => m.errorInvitationUnknown);
}
