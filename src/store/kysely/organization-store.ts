import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type {
  NewOrganizationInvitation,
  Organization,
  OrganizationInvitation,
  OrganizationMember,
  OrganizationMembership,
  OrganizationStore,
  OrganizationSummary,
  OwnerKeepingChange,
  StoreEngine,
} from '../ports.ts';
import type { Database, OrganizationInvitationsTable } from './database.ts';
import type { StoreContext } from './store-context.ts';
import { bumpClaimsStamp, userExists } from './user-links.ts';

/**
 * Organizations, their members and invitations (docs/decisions/0092-organizations-model.md).
 *
 * Every transaction that changes an organization's members takes its row first on PostgreSQL
 * (SQLite's BEGIN IMMEDIATE runs writers one at a time anyway), then the users' rows, then the
 * memberships: the order a user's deletion takes the last two in, so the two never wait for each
 * other in a circle. Changes that take something away lock the row against each other (the
 * last-owner rule counts owners after the lock); additions only keep the row from going away.
 */
export class KyselyOrganizationStore implements OrganizationStore {
  constructor(private readonly context: StoreContext) {}

  async create(
    organization: { name: string; slug: string; createdAt: number },
    owner: { userId: number; roles: readonly string[] },
  ): Promise<Organization> {
    return this.context.transaction(async (trx) => {
      const row = await trx
        .insertInto('organizations')
        .values({ name: organization.name, slug: organization.slug, created_at: organization.createdAt })
        .returning(ORGANIZATION_COLUMNS)
        .executeTakeFirstOrThrow();
      await trx.insertInto('organization_members').values({ organization_id: row.id, user_id: owner.userId, joined_at: organization.createdAt }).execute();
      await grantRoles(trx, row.id, owner.userId, owner.roles);
      return toOrganization(row);
    });
  }

  async findById(id: number): Promise<Organization | null> {
    const row = await this.context.db.selectFrom('organizations').select(ORGANIZATION_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toOrganization(row) : null;
  }

  async slugTaken(slug: string): Promise<boolean> {
    const row = await this.context.db.selectFrom('organizations').select('id').where('slug', '=', slug).executeTakeFirst();
    return row !== undefined;
  }

  async list(): Promise<OrganizationSummary[]> {
    const rows = await this.context.db
      .selectFrom('organizations')
      .select(ORGANIZATION_COLUMNS)
      .select((eb) =>
        eb
          .selectFrom('organization_members')
          .select((count) => count.fn.countAll<number>().as('count'))
          .whereRef('organization_members.organization_id', '=', 'organizations.id')
          .as('members'),
      )
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ ...toOrganization(row), members: Number(row.members ?? 0) }));
  }

  async listForUser(userId: number): Promise<OrganizationMembership[]> {
    return memberships(this.context.db, { userId });
  }

  async update(id: number, changes: { name?: string; slug?: string }): Promise<Organization | null> {
    const set = { ...(changes.name === undefined ? {} : { name: changes.name }), ...(changes.slug === undefined ? {} : { slug: changes.slug }) };
    if (Object.keys(set).length === 0) return this.findById(id);
    const row = await this.context.db.updateTable('organizations').set(set).where('id', '=', id).returning(ORGANIZATION_COLUMNS).executeTakeFirst();
    return row ? toOrganization(row) : null;
  }

  async delete(id: number, now: number): Promise<boolean> {
    return this.context.transaction(async (trx) => {
      // The whole row: no member can be added or chosen meanwhile.
      if ((await lockOrganization(trx, this.context.engine, id, 'delete')) === undefined) return false;
      const members = await trx.selectFrom('organization_members').select('user_id').where('organization_id', '=', id).orderBy('user_id').execute();
      for (const member of members) await bumpClaimsStamp(trx, member.user_id, now);
      // Memberships, their roles and the invitations cascade; the users', sessions' and families'
      // active choice is set null (foreign keys are on for every SQLite connection of the store).
      await trx.deleteFrom('organizations').where('id', '=', id).execute();
      return true;
    });
  }

  async membership(organizationId: number, userId: number): Promise<OrganizationMembership | null> {
    return (await memberships(this.context.db, { userId, organizationId }))[0] ?? null;
  }

  async listMembers(organizationId: number): Promise<OrganizationMember[]> {
    const { db } = this.context;
    const [rows, roles] = await Promise.all([
      db
        .selectFrom('organization_members as m')
        .innerJoin('users', 'users.id', 'm.user_id')
        .select(['m.user_id', 'm.joined_at', 'users.email', 'users.user_name'])
        .where('m.organization_id', '=', organizationId)
        .orderBy('m.user_id')
        .execute(),
      rolesOf(db, { organizationId }),
    ]);
    return rows.map((row) => ({
      userId: row.user_id,
      email: row.email,
      userName: row.user_name,
      roles: roles.get(key(organizationId, row.user_id)) ?? [],
      joinedAt: Number(row.joined_at),
    }));
  }

  async addMember(member: { organizationId: number; userId: number; roles: readonly string[]; joinedAt: number }): Promise<'added' | 'updated' | 'unchanged' | 'absent'> {
    return this.context.transaction((trx) => addMembership(trx, this.context.engine, member));
  }

  async setMemberRoles(change: { organizationId: number; userId: number; roles: readonly string[]; ownerRole: string; now: number }): Promise<OwnerKeepingChange> {
    const { organizationId, userId, ownerRole, now } = change;
    return this.context.transaction(async (trx) => {
      const held = await lockedMemberRoles(trx, this.context.engine, organizationId, userId);
      if (held === null) return 'absent';
      const wanted = new Set(change.roles);
      const taken = held.filter((role) => !wanted.has(role));
      const given = [...wanted].filter((role) => !held.includes(role));
      if (taken.length === 0 && given.length === 0) return 'done';
      if (taken.includes(ownerRole) && (await isLastOwner(trx, organizationId, userId, ownerRole))) return 'last-owner';
      // The user's row before the membership's (see the class).
      await bumpClaimsStamp(trx, userId, now);
      if (taken.length > 0) {
        await trx
          .deleteFrom('organization_member_roles')
          .where('organization_id', '=', organizationId)
          .where('user_id', '=', userId)
          .where('role', 'in', taken)
          .execute();
      }
      await grantRoles(trx, organizationId, userId, given);
      return 'done';
    });
  }

  async removeMember(change: { organizationId: number; userId: number; ownerRole: string; now: number }): Promise<OwnerKeepingChange> {
    const { organizationId, userId, ownerRole, now } = change;
    return this.context.transaction(async (trx) => {
      const held = await lockedMemberRoles(trx, this.context.engine, organizationId, userId);
      if (held === null) return 'absent';
      if (held.includes(ownerRole) && (await isLastOwner(trx, organizationId, userId, ownerRole))) return 'last-owner';
      await bumpClaimsStamp(trx, userId, now);
      await forgetActive(trx, organizationId, userId);
      // Its roles go with it (ON DELETE CASCADE).
      await trx.deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).execute();
      return 'done';
    });
  }

  async chooseActive(choice: { userId: number; organizationId: number | null; sessionId?: number; familyId?: number }): Promise<boolean> {
    const { userId, organizationId, sessionId, familyId } = choice;
    return this.context.transaction(async (trx) => {
      if (organizationId !== null && !(await holdMembership(trx, this.context.engine, organizationId, userId))) return false;
      const user = await trx.updateTable('users').set({ active_organization_id: organizationId }).where('id', '=', userId).executeTakeFirst();
      if (user.numUpdatedRows === 0n) return false;
      if (sessionId !== undefined) {
        await trx.updateTable('sessions').set({ organization_id: organizationId }).where('id', '=', sessionId).where('user_id', '=', userId).execute();
      }
      if (familyId !== undefined) {
        await trx.updateTable('refresh_families').set({ organization_id: organizationId }).where('id', '=', familyId).where('user_id', '=', userId).execute();
      }
      return true;
    });
  }

  async createInvitation(invitation: NewOrganizationInvitation): Promise<OrganizationInvitation> {
    return this.context.transaction(async (trx) => {
      await lockOrganization(trx, this.context.engine, invitation.organizationId, 'use');
      // One pending invitation per person: the newest link is the one that works.
      await trx
        .updateTable('organization_invitations')
        .set({ revoked_at: invitation.createdAt })
        .where(isPending())
        .where('organization_id', '=', invitation.organizationId)
        .where('normalized_email', '=', invitation.normalizedEmail)
        .execute();
      const row = await trx
        .insertInto('organization_invitations')
        .values({
          organization_id: invitation.organizationId,
          email: invitation.email,
          normalized_email: invitation.normalizedEmail,
          roles: JSON.stringify(invitation.roles),
          code_hash: invitation.codeHash,
          invited_by: invitation.invitedBy,
          created_at: invitation.createdAt,
          expires_at: invitation.expiresAt,
          accepted_at: null,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toInvitation(row);
    });
  }

  async listPendingInvitations(organizationId: number, now: number): Promise<OrganizationInvitation[]> {
    const rows = await this.context.db
      .selectFrom('organization_invitations')
      .selectAll()
      .where(isPending(now))
      .where('organization_id', '=', organizationId)
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toInvitation);
  }

  async revokeInvitation(organizationId: number, invitationId: number, now: number): Promise<boolean> {
    const result = await this.context.db
      .updateTable('organization_invitations')
      .set({ revoked_at: now })
      .where(isPending(now))
      .where('id', '=', invitationId)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async findInvitation(codeHash: string, now: number): Promise<{ invitation: OrganizationInvitation; organization: Organization } | null> {
    const { db } = this.context;
    const invitation = await db
      .selectFrom('organization_invitations')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .where(isPending(now))
      .executeTakeFirst();
    if (invitation === undefined) return null;
    // Never missing: the invitation goes with its organization.
    const organization = await db.selectFrom('organizations').select(ORGANIZATION_COLUMNS).where('id', '=', invitation.organization_id).executeTakeFirstOrThrow();
    return { invitation: toInvitation(invitation), organization: toOrganization(organization) };
  }

  async acceptInvitation(accept: { codeHash: string; userId: number; now: number }): Promise<OrganizationInvitation | null> {
    const { codeHash, userId, now } = accept;
    return this.context.transaction(async (trx) => {
      const found = await trx.selectFrom('organization_invitations').select('organization_id').where('code_hash', '=', codeHash).executeTakeFirst();
      if (found === undefined || !(await userExists(trx, userId))) return null;
      // The organization's row before the invitation's (see the class).
      await lockOrganization(trx, this.context.engine, found.organization_id, 'use');
      // One conditional UPDATE: of concurrent acceptances, on any instance, exactly one changes the row.
      const spent = await trx
        .updateTable('organization_invitations')
        .set({ accepted_at: now })
        .where('code_hash', '=', codeHash)
        .where(isPending(now))
        .returningAll()
        .executeTakeFirst();
      if (spent === undefined) return null;
      const invitation = toInvitation(spent);
      await addMembership(trx, this.context.engine, { organizationId: invitation.organizationId, userId, roles: invitation.roles, joinedAt: now });
      return invitation;
    });
  }

  async acceptInvitationsTo(accept: { normalizedEmail: string; userId: number; now: number }): Promise<OrganizationInvitation[]> {
    const { normalizedEmail, userId, now } = accept;
    return this.context.transaction(async (trx) => {
      if (!(await userExists(trx, userId))) return [];
      const invited = await trx
        .selectFrom('organization_invitations')
        .select('organization_id')
        .distinct()
        .where('normalized_email', '=', normalizedEmail)
        .where(isPending(now))
        .orderBy('organization_id')
        .execute();
      // The organizations' rows before the invitations' (see the class), in one order for all.
      for (const { organization_id } of invited) await lockOrganization(trx, this.context.engine, organization_id, 'use');
      const spent = await trx
        .updateTable('organization_invitations')
        .set({ accepted_at: now })
        .where('normalized_email', '=', normalizedEmail)
        .where(isPending(now))
        .returningAll()
        .execute();
      const invitations = spent.map(toInvitation).sort((a, b) => a.id - b.id);
      for (const invitation of invitations) {
        await addMembership(trx, this.context.engine, { organizationId: invitation.organizationId, userId, roles: invitation.roles, joinedAt: now });
      }
      return invitations;
    });
  }
}

const ORGANIZATION_COLUMNS = ['id', 'name', 'slug', 'created_at'] as const;

type OrganizationRow = { id: number; name: string; slug: string; created_at: number };

// Times are bigint in PostgreSQL; the pool parses int8 to number, Number() settles the type.
function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, slug: row.slug, createdAt: Number(row.created_at) };
}

function toInvitation(row: Selectable<OrganizationInvitationsTable>): OrganizationInvitation {
  return {
    id: Number(row.id),
    organizationId: row.organization_id,
    email: row.email,
    normalizedEmail: row.normalized_email,
    roles: JSON.parse(row.roles) as string[],
    invitedBy: row.invited_by,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    acceptedAt: row.accepted_at === null ? null : Number(row.accepted_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

/** Neither accepted nor revoked (and, given `now`, not expired at `now`). */
function isPending(now?: number) {
  return (eb: ExpressionBuilder<Database, 'organization_invitations'>) =>
    eb.and([eb('accepted_at', 'is', null), eb('revoked_at', 'is', null), ...(now === undefined ? [] : [eb('expires_at', '>', now)])]);
}

/**
 * How a transaction holds the organization's row on PostgreSQL (SQLite's transactions run one at
 * a time): `delete` excludes everyone; `change` (taking members or roles away) excludes other
 * changes and the deletion, so that owners are counted after the lock; `use` (adding, choosing,
 * inviting) only keeps the row from being deleted meanwhile. Undefined for an unknown organization.
 */
async function lockOrganization(trx: Kysely<Database>, engine: StoreEngine, id: number, purpose: 'delete' | 'change' | 'use') {
  const query = trx.selectFrom('organizations').select('id').where('id', '=', id);
  if (engine !== 'postgres') return query.executeTakeFirst();
  const locked = purpose === 'delete' ? query.forUpdate() : purpose === 'change' ? query.forNoKeyUpdate() : query.forKeyShare();
  return locked.executeTakeFirst();
}

/**
 * The member's roles, after taking the organization's row for a change; null for an unknown
 * organization or a user who is not its member.
 */
async function lockedMemberRoles(trx: Kysely<Database>, engine: StoreEngine, organizationId: number, userId: number): Promise<string[] | null> {
  if ((await lockOrganization(trx, engine, organizationId, 'change')) === undefined) return null;
  const member = await trx
    .selectFrom('organization_members')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (member === undefined) return null;
  const rows = await trx
    .selectFrom('organization_member_roles')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
  return rows.map((row) => row.role);
}

/** Whether no member but `userId` holds `ownerRole`: run after `lockedMemberRoles`, which makes the count hold until the commit. */
async function isLastOwner(trx: Kysely<Database>, organizationId: number, userId: number, ownerRole: string): Promise<boolean> {
  const other = await trx
    .selectFrom('organization_member_roles')
    .select('user_id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', ownerRole)
    .where('user_id', '<>', userId)
    .limit(1)
    .executeTakeFirst();
  return other === undefined;
}

/**
 * Whether the user is a member, keeping the membership (and the organization) from going away
 * until the commit on PostgreSQL: a removal that follows clears the choice made here.
 */
async function holdMembership(trx: Kysely<Database>, engine: StoreEngine, organizationId: number, userId: number): Promise<boolean> {
  if ((await lockOrganization(trx, engine, organizationId, 'use')) === undefined) return false;
  const query = trx.selectFrom('organization_members').select('user_id').where('organization_id', '=', organizationId).where('user_id', '=', userId);
  return (await (engine === 'postgres' ? query.forKeyShare() : query).executeTakeFirst()) !== undefined;
}

/** A removed member's user, sessions and families no longer have the organization active. */
async function forgetActive(trx: Kysely<Database>, organizationId: number, userId: number): Promise<void> {
  await trx.updateTable('users').set({ active_organization_id: null }).where('id', '=', userId).where('active_organization_id', '=', organizationId).execute();
  await trx.updateTable('sessions').set({ organization_id: null }).where('user_id', '=', userId).where('organization_id', '=', organizationId).execute();
  await trx.updateTable('refresh_families').set({ organization_id: null }).where('user_id', '=', userId).where('organization_id', '=', organizationId).execute();
}

/** `addMember` inside the caller's transaction. Takes nothing away, so bumps no stamp. */
async function addMembership(
  trx: Kysely<Database>,
  engine: StoreEngine,
  member: { organizationId: number; userId: number; roles: readonly string[]; joinedAt: number },
): Promise<'added' | 'updated' | 'unchanged' | 'absent'> {
  const { organizationId, userId } = member;
  if ((await lockOrganization(trx, engine, organizationId, 'use')) === undefined || !(await userExists(trx, userId))) return 'absent';
  const inserted = await trx
    .insertInto('organization_members')
    .values({ organization_id: organizationId, user_id: userId, joined_at: member.joinedAt })
    .onConflict((conflict) => conflict.columns(['organization_id', 'user_id']).doNothing())
    .executeTakeFirst();
  const granted = await grantRoles(trx, organizationId, userId, member.roles);
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return 'added';
  return granted > 0 ? 'updated' : 'unchanged';
}

/** Gives the member the roles they lack; returns how many are new. */
async function grantRoles(trx: Kysely<Database>, organizationId: number, userId: number, roles: readonly string[]): Promise<number> {
  const names = [...new Set(roles)];
  if (names.length === 0) return 0;
  const result = await trx
    .insertInto('organization_member_roles')
    .values(names.map((role) => ({ organization_id: organizationId, user_id: userId, role })))
    .onConflict((conflict) => conflict.columns(['organization_id', 'user_id', 'role']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** The user's memberships (of one organization, when given) with their roles, by organization id: two queries. */
async function memberships(db: Kysely<Database>, which: { userId: number; organizationId?: number }): Promise<OrganizationMembership[]> {
  const { userId, organizationId } = which;
  const [rows, roles] = await Promise.all([
    db
      .selectFrom('organization_members as m')
      .innerJoin('organizations as o', 'o.id', 'm.organization_id')
      .select(['o.id', 'o.name', 'o.slug', 'o.created_at', 'm.joined_at'])
      .where('m.user_id', '=', userId)
      .$if(organizationId !== undefined, (query) => query.where('m.organization_id', '=', organizationId!))
      .orderBy('o.id')
      .execute(),
    rolesOf(db, { userId, ...(organizationId === undefined ? {} : { organizationId }) }),
  ]);
  return rows.map((row) => ({ organization: toOrganization(row), roles: roles.get(key(row.id, userId)) ?? [], joinedAt: Number(row.joined_at) }));
}

/** Roles of one user, of one organization, or both, grouped by membership, each list sorted by name. */
async function rolesOf(db: Kysely<Database>, which: { userId?: number; organizationId?: number }): Promise<Map<string, string[]>> {
  const rows = await db
    .selectFrom('organization_member_roles')
    .select(['organization_id', 'user_id', 'role'])
    .$if(which.userId !== undefined, (query) => query.where('user_id', '=', which.userId!))
    .$if(which.organizationId !== undefined, (query) => query.where('organization_id', '=', which.organizationId!))
    // Byte order on both engines: the column is COLLATE "C" in PostgreSQL.
    .orderBy('role')
    .execute();
  const grouped = new Map<string, string[]>();
  for (const row of rows) {
    const membership = key(row.organization_id, row.user_id);
    const roles = grouped.get(membership);
    if (roles) roles.push(row.role);
    else grouped.set(membership, [row.role]);
  }
  return grouped;
}

function key(organizationId: number, userId: number): string {
  return `${organizationId}:${userId}`;
}
