/**
 * Gatehouse's organizations (docs/decisions/0092-organizations-model.md): the OrganizationStore
 * port on every engine, also with the tables under a prefix (and a schema), and migration 0016's
 * adoption of a table `organizations` that the reference service (or an older Gatehouse) made.
 */
import { type Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createStore } from '../../src/store/create-store.ts';
import { tableNaming } from '../../src/store/kysely/table-naming.ts';
import { autoId } from '../../src/store/migrations/columns.ts';
import { migrationProvider } from '../../src/store/migrations/migration-provider.ts';
import { StoreConflictError, type NewOrganizationInvitation, type OwnerKeepingChange, type Store } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables, type TestEngine } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

const engines = await testEnginesWithPrefixedTables();

const OWNER = 'OrgOwner';
const ADMIN = 'OrgAdmin';
const MEMBER = 'OrgMember';
const FAR = 10_000_000;

describe.each(engines)('OrganizationStore on $label', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const store = () => database.store;
  const organizations = () => database.store.organizations;

  let serial = 0;
  const newUser = async () => {
    serial += 1;
    const email = `person${serial}@example.com`;
    const user = await store().users.create({ email, normalizedEmail: email, userName: `person${serial}`, normalizedUserName: `person${serial}`, passwordHash: null, emailConfirmed: true, createdAt: 1 });
    return user.id;
  };
  const newOrganization = async (ownerId: number, name = 'Acme') => {
    serial += 1;
    return organizations().create({ name, slug: `org-${serial}`, createdAt: 1_000 + serial }, { userId: ownerId, roles: [OWNER, ADMIN] });
  };
  const claimsStamp = async (userId: number) => (await store().users.findById(userId))!.claimsStamp;
  const userEvents = async (userId: number) =>
    (await store().revocations.listSince(0)).filter((event) => event.kind === 'user' && event.subject === String(userId));
  const newSession = async (userId: number, organizationId: number | null = null) => {
    serial += 1;
    return store().sessions.create({ userId, tokenHash: `session-${serial}`, securityStamp: 1, persistent: false, method: 'password', createdAt: 1, expiresAt: FAR, organizationId });
  };
  const newFamily = async (userId: number, organizationId: number | null = null) => {
    serial += 1;
    const tokenHash = `family-${serial}`;
    const { family } = await store().refreshTokens.createFamily({ userId, securityStamp: 1, tokenHash, createdAt: 1, expiresAt: FAR, organizationId });
    return { ...family, tokenHash };
  };
  const sessionOrganization = async (tokenHash: string) => (await store().sessions.findByTokenHash(tokenHash, 0))!.organizationId;
  const familyOrganization = async (tokenHash: string) => (await store().refreshTokens.find(tokenHash))!.family.organizationId;
  const activeOrganization = async (userId: number) => (await store().users.findById(userId))!.activeOrganizationId;

  describe('organizations', () => {
    it('creates one with its owner, finds it, and refuses a taken slug on create and update', async () => {
      const owner = await newUser();
      const acme = await organizations().create({ name: 'Acme', slug: 'acme', createdAt: 1_000 }, { userId: owner, roles: [OWNER, ADMIN] });
      expect(acme).toEqual({ id: expect.any(Number), name: 'Acme', slug: 'acme', createdAt: 1_000 });
      expect(await organizations().findById(acme.id)).toEqual(acme);
      expect(await organizations().findById(acme.id + 1_000)).toBeNull();
      expect(await organizations().slugTaken('acme')).toBe(true);
      expect(await organizations().slugTaken('acme-2')).toBe(false);

      const taken = organizations().create({ name: 'Other', slug: 'acme', createdAt: 2_000 }, { userId: owner, roles: [OWNER] });
      await expect(taken).rejects.toBeInstanceOf(StoreConflictError);
      await expect(taken).rejects.toMatchObject({ field: 'slug' });
      // Nothing of the refused one stays: no organization, no membership.
      expect((await organizations().list()).map((organization) => organization.slug)).toEqual(['acme']);
      expect(await organizations().listForUser(owner)).toHaveLength(1);

      const globex = await organizations().create({ name: 'Globex', slug: 'globex', createdAt: 3_000 }, { userId: owner, roles: [OWNER] });
      await expect(organizations().update(globex.id, { slug: 'acme' })).rejects.toMatchObject({ field: 'slug' });
      expect(await organizations().update(globex.id, { name: 'Globex Corp' })).toEqual({ ...globex, name: 'Globex Corp' });
      expect(await organizations().update(globex.id, { slug: 'globex-corp' })).toEqual({ ...globex, name: 'Globex Corp', slug: 'globex-corp' });
      expect(await organizations().update(globex.id, {})).toEqual({ ...globex, name: 'Globex Corp', slug: 'globex-corp' });
      expect(await organizations().update(globex.id + 1_000, { name: 'Nobody' })).toBeNull();
    });

    it('never gives a deleted organization’s id to a new one (tokens and sessions name the id)', async () => {
      const owner = await newUser();
      const first = await newOrganization(owner);
      expect(await organizations().delete(first.id, 2_000)).toBe(true);
      const second = await newOrganization(owner);
      expect(second.id).toBeGreaterThan(first.id);
    });

    it('lists organizations by id with their member counts, none left out for having no member', async () => {
      const owner = await newUser();
      const other = await newUser();
      const first = await newOrganization(owner, 'First');
      const second = await newOrganization(other, 'Second');
      await organizations().addMember({ organizationId: first.id, userId: other, roles: [MEMBER], joinedAt: 2_000 });
      const third = await newOrganization(await newUser(), 'Third');
      await store().users.delete((await organizations().listMembers(third.id))[0]!.userId);
      expect((await organizations().list()).map(({ name, members }) => ({ name, members }))).toEqual([
        { name: 'First', members: 2 },
        { name: 'Second', members: 1 },
        { name: 'Third', members: 0 },
      ]);
      expect((await organizations().list()).map((organization) => organization.id)).toEqual([first.id, second.id, third.id]);
    });

    it('gives a user’s memberships by organization id, with roles sorted byte-wise', async () => {
      const user = await newUser();
      const later = await newOrganization(await newUser(), 'Later');
      const earlier = await newOrganization(user, 'Earlier');
      await organizations().addMember({ organizationId: later.id, userId: user, roles: ['alpha', MEMBER, 'Zeta', ADMIN], joinedAt: 7_000 });
      // Upper case before lower case, as the global roles sort: the column compares bytes on both engines.
      expect(await organizations().listForUser(user)).toEqual(
        [
          { organization: earlier, roles: [ADMIN, OWNER], joinedAt: earlier.createdAt },
          { organization: later, roles: [ADMIN, MEMBER, 'Zeta', 'alpha'], joinedAt: 7_000 },
        ].sort((a, b) => a.organization.id - b.organization.id),
      );
      expect(await organizations().membership(later.id, user)).toEqual({ organization: later, roles: [ADMIN, MEMBER, 'Zeta', 'alpha'], joinedAt: 7_000 });
      expect(await organizations().membership(later.id, await newUser())).toBeNull();
      expect(await organizations().listForUser(await newUser())).toEqual([]);
    });

    it('lists the members by user id with their e-mail, user name and roles', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const member = await newUser();
      await organizations().addMember({ organizationId: acme.id, userId: member, roles: [MEMBER], joinedAt: 5_000 });
      const ownerUser = (await store().users.findById(owner))!;
      const memberUser = (await store().users.findById(member))!;
      expect(await organizations().listMembers(acme.id)).toEqual([
        { userId: owner, email: ownerUser.email, userName: ownerUser.userName, roles: [ADMIN, OWNER], joinedAt: acme.createdAt },
        { userId: member, email: memberUser.email, userName: memberUser.userName, roles: [MEMBER], joinedAt: 5_000 },
      ]);
      expect(await organizations().listMembers(acme.id + 1_000)).toEqual([]);
    });
  });

  describe('members', () => {
    it('adds a member, then only the roles they lack, and moves no claims stamp', async () => {
      const acme = await newOrganization(await newUser());
      const user = await newUser();
      const stamp = await claimsStamp(user);
      expect(await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER], joinedAt: 2_000 })).toBe('added');
      expect(await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER], joinedAt: 3_000 })).toBe('unchanged');
      expect(await organizations().addMember({ organizationId: acme.id, userId: user, roles: [ADMIN], joinedAt: 4_000 })).toBe('updated');
      // Nothing is taken away, and the first joining stays.
      expect(await organizations().membership(acme.id, user)).toMatchObject({ roles: [ADMIN, MEMBER], joinedAt: 2_000 });
      expect(await organizations().addMember({ organizationId: acme.id + 1_000, userId: user, roles: [MEMBER], joinedAt: 2_000 })).toBe('absent');
      expect(await organizations().addMember({ organizationId: acme.id, userId: user + 1_000, roles: [MEMBER], joinedAt: 2_000 })).toBe('absent');
      expect(await claimsStamp(user)).toBe(stamp);
      expect(await userEvents(user)).toEqual([]);
    });

    it('replaces a member’s roles as a claims change: the stamp up by exactly one, with its event', async () => {
      const acme = await newOrganization(await newUser());
      const user = await newUser();
      await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER, ADMIN], joinedAt: 2_000 });
      const stamp = await claimsStamp(user);
      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: user, roles: [MEMBER, 'Billing'], ownerRole: OWNER, now: 9_000 })).toBe('done');
      expect(await organizations().membership(acme.id, user)).toMatchObject({ roles: ['Billing', MEMBER] });
      expect(await claimsStamp(user)).toBe(stamp + 1);
      expect(await userEvents(user)).toEqual([expect.objectContaining({ kind: 'user', subject: String(user), claimsStamp: stamp + 1, at: 9_000 })]);

      // The same set again changes nothing, and bumps nothing.
      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: user, roles: [MEMBER, 'Billing', MEMBER], ownerRole: OWNER, now: 9_500 })).toBe('done');
      expect(await claimsStamp(user)).toBe(stamp + 1);

      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: await newUser(), roles: [MEMBER], ownerRole: OWNER, now: 9_000 })).toBe('absent');
      expect(await organizations().setMemberRoles({ organizationId: acme.id + 1_000, userId: user, roles: [MEMBER], ownerRole: OWNER, now: 9_000 })).toBe('absent');
    });

    it('removes a member as a claims change: the stamp up by exactly one, with its event', async () => {
      const acme = await newOrganization(await newUser());
      const user = await newUser();
      await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER], joinedAt: 2_000 });
      const stamp = await claimsStamp(user);
      expect(await organizations().removeMember({ organizationId: acme.id, userId: user, ownerRole: OWNER, now: 9_000 })).toBe('done');
      expect(await organizations().membership(acme.id, user)).toBeNull();
      expect(await claimsStamp(user)).toBe(stamp + 1);
      expect(await userEvents(user)).toEqual([expect.objectContaining({ kind: 'user', subject: String(user), claimsStamp: stamp + 1, at: 9_000 })]);
      expect(await organizations().removeMember({ organizationId: acme.id, userId: user, ownerRole: OWNER, now: 9_000 })).toBe('absent');
      expect(await organizations().removeMember({ organizationId: acme.id + 1_000, userId: user, ownerRole: OWNER, now: 9_000 })).toBe('absent');
      expect(await claimsStamp(user)).toBe(stamp + 1);
      // Back as a member, with none of the old roles.
      expect(await organizations().addMember({ organizationId: acme.id, userId: user, roles: [ADMIN], joinedAt: 10_000 })).toBe('added');
      expect(await organizations().membership(acme.id, user)).toMatchObject({ roles: [ADMIN] });
    });

    it('keeps the last owner: neither removed nor demoted, until another owner exists', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const stamp = await claimsStamp(owner);
      expect(await organizations().removeMember({ organizationId: acme.id, userId: owner, ownerRole: OWNER, now: 9_000 })).toBe('last-owner');
      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: owner, roles: [ADMIN], ownerRole: OWNER, now: 9_000 })).toBe('last-owner');
      expect(await organizations().membership(acme.id, owner)).toMatchObject({ roles: [ADMIN, OWNER] });
      expect(await claimsStamp(owner)).toBe(stamp);
      // Taking another role from the last owner is allowed.
      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: owner, roles: [OWNER], ownerRole: OWNER, now: 9_000 })).toBe('done');

      const second = await newUser();
      await organizations().addMember({ organizationId: acme.id, userId: second, roles: [OWNER], joinedAt: 2_000 });
      expect(await organizations().setMemberRoles({ organizationId: acme.id, userId: owner, roles: [MEMBER], ownerRole: OWNER, now: 9_000 })).toBe('done');
      expect(await organizations().removeMember({ organizationId: acme.id, userId: second, ownerRole: OWNER, now: 9_000 })).toBe('last-owner');
      expect(await organizations().removeMember({ organizationId: acme.id, userId: owner, ownerRole: OWNER, now: 9_000 })).toBe('done');
      expect((await organizations().listMembers(acme.id)).map((member) => [member.userId, member.roles])).toEqual([[second, [OWNER]]]);
    });

    /**
     * Two owners, each taking the other away (a removal or a demotion by turns), in 12
     * organizations at once: of each pair exactly one change is done, and one owner stays.
     */
    const PAIRS = 12;
    async function ownerPairs() {
      const pairs: { organizationId: number; owners: [number, number]; change: 'removeMember' | 'setMemberRoles' }[] = [];
      for (let round = 0; round < PAIRS; round += 1) {
        const first = await newUser();
        const second = await newUser();
        const organization = await newOrganization(first);
        await organizations().addMember({ organizationId: organization.id, userId: second, roles: [OWNER], joinedAt: 2_000 });
        pairs.push({ organizationId: organization.id, owners: [first, second], change: round % 2 === 0 ? 'removeMember' : 'setMemberRoles' });
      }
      return pairs;
    }
    const takeAway = (on: Store, { organizationId, owners, change }: Awaited<ReturnType<typeof ownerPairs>>[number], side: 0 | 1) => {
      const userId = owners[1 - side]!;
      return change === 'removeMember'
        ? on.organizations.removeMember({ organizationId, userId, ownerRole: OWNER, now: 9_000 })
        : on.organizations.setMemberRoles({ organizationId, userId, roles: [MEMBER], ownerRole: OWNER, now: 9_000 });
    };
    async function expectOneOwnerEach(pairs: Awaited<ReturnType<typeof ownerPairs>>, outcomes: OwnerKeepingChange[][]) {
      for (const [round, { organizationId }] of pairs.entries()) {
        expect(outcomes[round]!.slice().sort(), `round ${round}`).toEqual(['done', 'last-owner']);
        const owners = (await organizations().listMembers(organizationId)).filter((member) => member.roles.includes(OWNER));
        expect(owners, `round ${round}`).toHaveLength(1);
      }
    }

    it('never leaves an organization whose two owners take each other away at once without one, each side on a store of its own', async () => {
      const pairs = await ownerPairs();
      const sides = [await createStore(database.databaseUrl, engine.tables), await createStore(database.databaseUrl, engine.tables)];
      try {
        const outcomes = await Promise.all(pairs.map((pair) => Promise.all([takeAway(sides[0]!, pair, 0), takeAway(sides[1]!, pair, 1)])));
        await expectOneOwnerEach(pairs, outcomes);
      } finally {
        await Promise.all(sides.map((side) => side.close()));
      }
    });

    it('never leaves an organization whose two owners take each other away at once without one, each side in a process of its own', async () => {
      const pairs = await ownerPairs();
      const perSide = await inSeparateProcesses<OwnerKeepingChange[]>(
        2,
        database.databaseUrl,
        `const pairs = ${JSON.stringify(pairs)};
         return Promise.all(pairs.map(({ organizationId, owners, change }) => {
           const userId = owners[1 - index];
           return change === 'removeMember'
             ? store.organizations.removeMember({ organizationId, userId, ownerRole: '${OWNER}', now: 9000 })
             : store.organizations.setMemberRoles({ organizationId, userId, roles: ['${MEMBER}'], ownerRole: '${OWNER}', now: 9000 });
         }));`,
        engine.tables,
      );
      await expectOneOwnerEach(pairs, pairs.map((_, round) => [perSide[0]![round]!, perSide[1]![round]!]));
    });

    it('goes with its user', async () => {
      const acme = await newOrganization(await newUser());
      const user = await newUser();
      await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER], joinedAt: 2_000 });
      await store().users.delete(user);
      expect((await organizations().list()).find((organization) => organization.id === acme.id)).toMatchObject({ members: 1 });
      expect((await organizations().listMembers(acme.id)).map((member) => member.userId)).not.toContain(user);
    });
  });

  describe('the active organization', () => {
    it('is carried by the sessions and families it was created with', async () => {
      const user = await newUser();
      const acme = await newOrganization(user);
      const session = await newSession(user, acme.id);
      const family = await newFamily(user, acme.id);
      expect(session.organizationId).toBe(acme.id);
      expect(await sessionOrganization(session.tokenHash)).toBe(acme.id);
      expect(family.organizationId).toBe(acme.id);
      expect(await familyOrganization(family.tokenHash)).toBe(acme.id);
      // None when not told.
      expect((await newSession(user)).organizationId).toBeNull();
      expect((await newFamily(user)).organizationId).toBeNull();
      expect(await activeOrganization(user)).toBeNull();
    });

    it('is chosen by a member only: remembered on the user, set on that user’s session and family', async () => {
      const user = await newUser();
      const acme = await newOrganization(user);
      const globex = await newOrganization(await newUser());
      const session = await newSession(user);
      const family = await newFamily(user);
      const stranger = await newUser();
      const strangersSession = await newSession(stranger);
      const strangersFamily = await newFamily(stranger);

      expect(await organizations().chooseActive({ userId: user, organizationId: acme.id, sessionId: session.id, familyId: family.id })).toBe(true);
      expect([await activeOrganization(user), await sessionOrganization(session.tokenHash), await familyOrganization(family.tokenHash)]).toEqual([acme.id, acme.id, acme.id]);

      // Not a member of globex: nothing written anywhere.
      expect(await organizations().chooseActive({ userId: user, organizationId: globex.id, sessionId: session.id, familyId: family.id })).toBe(false);
      expect(await organizations().chooseActive({ userId: user, organizationId: globex.id + 1_000 })).toBe(false);
      expect([await activeOrganization(user), await sessionOrganization(session.tokenHash), await familyOrganization(family.tokenHash)]).toEqual([acme.id, acme.id, acme.id]);

      // Another user's session and family are left alone.
      await organizations().addMember({ organizationId: acme.id, userId: stranger, roles: [MEMBER], joinedAt: 2_000 });
      expect(await organizations().chooseActive({ userId: user, organizationId: acme.id, sessionId: strangersSession.id, familyId: strangersFamily.id })).toBe(true);
      expect([await sessionOrganization(strangersSession.tokenHash), await familyOrganization(strangersFamily.tokenHash)]).toEqual([null, null]);

      // Null clears the choice, only where told.
      expect(await organizations().chooseActive({ userId: user, organizationId: null, sessionId: session.id })).toBe(true);
      expect([await activeOrganization(user), await sessionOrganization(session.tokenHash), await familyOrganization(family.tokenHash)]).toEqual([null, null, acme.id]);
    });

    it('is forgotten by a removed member’s user, sessions and families, and by no one else’s', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const user = await newUser();
      const globex = await newOrganization(user);
      await organizations().addMember({ organizationId: acme.id, userId: user, roles: [MEMBER], joinedAt: 2_000 });
      const inAcme = { session: await newSession(user, acme.id), family: await newFamily(user, acme.id) };
      const inGlobex = { session: await newSession(user, globex.id), family: await newFamily(user, globex.id) };
      const owners = { session: await newSession(owner, acme.id), family: await newFamily(owner, acme.id) };
      await organizations().chooseActive({ userId: user, organizationId: acme.id });
      await organizations().chooseActive({ userId: owner, organizationId: acme.id });

      expect(await organizations().removeMember({ organizationId: acme.id, userId: user, ownerRole: OWNER, now: 9_000 })).toBe('done');
      expect(await activeOrganization(user)).toBeNull();
      expect([await sessionOrganization(inAcme.session.tokenHash), await familyOrganization(inAcme.family.tokenHash)]).toEqual([null, null]);
      expect([await sessionOrganization(inGlobex.session.tokenHash), await familyOrganization(inGlobex.family.tokenHash)]).toEqual([globex.id, globex.id]);
      expect(await activeOrganization(owner)).toBe(acme.id);
      expect([await sessionOrganization(owners.session.tokenHash), await familyOrganization(owners.family.tokenHash)]).toEqual([acme.id, acme.id]);
    });
  });

  describe('deletion', () => {
    it('takes the memberships and invitations with it, bumps every member’s stamp and clears every active choice', async () => {
      const owner = await newUser();
      const member = await newUser();
      const acme = await newOrganization(owner);
      const globex = await newOrganization(owner, 'Globex');
      await organizations().addMember({ organizationId: acme.id, userId: member, roles: [MEMBER], joinedAt: 2_000 });
      await organizations().createInvitation(invitation(acme.id, 'invitee@example.com', 'code-acme'));
      const session = await newSession(member, acme.id);
      const family = await newFamily(owner, acme.id);
      const elsewhere = await newSession(owner, globex.id);
      await organizations().chooseActive({ userId: member, organizationId: acme.id });
      const stamps = [await claimsStamp(owner), await claimsStamp(member)];

      expect(await organizations().delete(acme.id, 9_000)).toBe(true);
      expect(await organizations().findById(acme.id)).toBeNull();
      expect(await organizations().listMembers(acme.id)).toEqual([]);
      expect((await organizations().listForUser(owner)).map((membership) => membership.organization.id)).toEqual([globex.id]);
      expect(await organizations().listForUser(member)).toEqual([]);
      expect(await organizations().findInvitation(hashOf('code-acme'), 0)).toBeNull();
      expect(await organizations().listPendingInvitations(acme.id, 0)).toEqual([]);
      expect([await claimsStamp(owner), await claimsStamp(member)]).toEqual([stamps[0]! + 1, stamps[1]! + 1]);
      expect(await userEvents(owner)).toEqual([expect.objectContaining({ claimsStamp: stamps[0]! + 1, at: 9_000 })]);
      expect(await userEvents(member)).toEqual([expect.objectContaining({ claimsStamp: stamps[1]! + 1, at: 9_000 })]);
      expect([await activeOrganization(member), await sessionOrganization(session.tokenHash), await familyOrganization(family.tokenHash)]).toEqual([null, null, null]);
      expect(await sessionOrganization(elsewhere.tokenHash)).toBe(globex.id);
      // The slug is free again; the organization is gone for good.
      expect(await organizations().slugTaken(acme.slug)).toBe(false);
      expect(await organizations().delete(acme.id, 9_000)).toBe(false);
    });
  });

  describe('invitations', () => {
    it('revokes the older pending invitation to the same e-mail in the same organization only', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const globex = await newOrganization(owner, 'Globex');
      const first = await organizations().createInvitation(invitation(acme.id, 'Ann@Example.com', 'code-1', { invitedBy: owner }));
      expect(first).toEqual({
        id: expect.any(Number),
        organizationId: acme.id,
        email: 'Ann@Example.com',
        normalizedEmail: 'ann@example.com',
        roles: [MEMBER],
        invitedBy: owner,
        createdAt: 1_000,
        expiresAt: 5_000,
        acceptedAt: null,
        revokedAt: null,
      });
      const elsewhere = await organizations().createInvitation(invitation(globex.id, 'ann@example.com', 'code-2'));
      const someoneElse = await organizations().createInvitation(invitation(acme.id, 'bob@example.com', 'code-3'));
      const second = await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-4', { createdAt: 1_500, roles: [ADMIN, MEMBER] }));

      expect((await organizations().listPendingInvitations(acme.id, 2_000)).map((pending) => pending.id)).toEqual([second.id, someoneElse.id]);
      expect((await organizations().listPendingInvitations(globex.id, 2_000)).map((pending) => pending.id)).toEqual([elsewhere.id]);
      expect(await organizations().findInvitation(hashOf('code-1'), 2_000)).toBeNull();
      expect(await organizations().findInvitation(hashOf('code-4'), 2_000)).toEqual({ invitation: second, organization: acme });
      expect(second.roles).toEqual([ADMIN, MEMBER]);
    });

    it('lists as pending neither the accepted, the revoked nor the expired, newest first', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const accepted = await organizations().createInvitation(invitation(acme.id, 'a@example.com', 'code-a'));
      const revoked = await organizations().createInvitation(invitation(acme.id, 'b@example.com', 'code-b'));
      const expiring = await organizations().createInvitation(invitation(acme.id, 'c@example.com', 'code-c', { expiresAt: 2_000 }));
      const open = await organizations().createInvitation(invitation(acme.id, 'd@example.com', 'code-d'));
      expect(await organizations().acceptInvitation({ codeHash: hashOf('code-a'), userId: await newUser(), now: 1_500 })).not.toBeNull();
      expect(await organizations().revokeInvitation(acme.id, revoked.id, 1_500)).toBe(true);
      expect((await organizations().listPendingInvitations(acme.id, 1_999)).map((pending) => pending.id)).toEqual([open.id, expiring.id]);
      expect((await organizations().listPendingInvitations(acme.id, 2_000)).map((pending) => pending.id)).toEqual([open.id]);
      expect(accepted.id).toBeLessThan(open.id);
    });

    it('revokes an invitation only within its organization, and only once', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const globex = await newOrganization(owner, 'Globex');
      const pending = await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-r'));
      expect(await organizations().revokeInvitation(globex.id, pending.id, 1_500)).toBe(false);
      expect(await organizations().findInvitation(hashOf('code-r'), 1_500)).not.toBeNull();
      expect(await organizations().revokeInvitation(acme.id, pending.id, 1_500)).toBe(true);
      expect(await organizations().revokeInvitation(acme.id, pending.id, 1_600)).toBe(false);
      expect(await organizations().findInvitation(hashOf('code-r'), 1_500)).toBeNull();
      expect(await organizations().acceptInvitation({ codeHash: hashOf('code-r'), userId: owner, now: 1_500 })).toBeNull();
    });

    it('finds an invitation only while it is pending', async () => {
      const acme = await newOrganization(await newUser());
      await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-f', { expiresAt: 3_000 }));
      expect(await organizations().findInvitation(hashOf('code-f'), 2_999)).toMatchObject({ invitation: { expiresAt: 3_000 }, organization: acme });
      expect(await organizations().findInvitation(hashOf('code-f'), 3_000)).toBeNull();
      expect(await organizations().findInvitation(hashOf('unknown'), 0)).toBeNull();
      expect(await organizations().acceptInvitation({ codeHash: hashOf('code-f'), userId: await newUser(), now: 3_000 })).toBeNull();
    });

    it('is accepted by exactly one of several at once, making the user a member with its roles and no stamp moved', async () => {
      const acme = await newOrganization(await newUser());
      await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-once', { roles: [MEMBER, ADMIN] }));
      const user = await newUser();
      const stamp = await claimsStamp(user);
      const other = await createStore(database.databaseUrl, engine.tables);
      try {
        const accept = (on: Store) => on.organizations.acceptInvitation({ codeHash: hashOf('code-once'), userId: user, now: 2_000 });
        const results = await Promise.all([store(), other, store(), other, store(), other].map(accept));
        const accepted = results.filter((result) => result !== null);
        expect(accepted).toHaveLength(1);
        expect(accepted[0]).toMatchObject({ organizationId: acme.id, acceptedAt: 2_000, roles: [MEMBER, ADMIN] });
      } finally {
        await other.close();
      }
      expect(await organizations().membership(acme.id, user)).toMatchObject({ roles: [ADMIN, MEMBER], joinedAt: 2_000 });
      expect(await organizations().findInvitation(hashOf('code-once'), 2_000)).toBeNull();
      expect(await claimsStamp(user)).toBe(stamp);
    });

    it('adds the invitation’s roles to a member, taking none away; null for an unknown user', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      await organizations().createInvitation(invitation(acme.id, 'owner@example.com', 'code-m', { roles: [MEMBER] }));
      expect(await organizations().acceptInvitation({ codeHash: hashOf('code-m'), userId: owner + 1_000, now: 2_000 })).toBeNull();
      // Still pending: the unknown user spent nothing.
      expect(await organizations().acceptInvitation({ codeHash: hashOf('code-m'), userId: owner, now: 2_000 })).not.toBeNull();
      expect(await organizations().membership(acme.id, owner)).toMatchObject({ roles: [ADMIN, MEMBER, OWNER], joinedAt: acme.createdAt });
    });

    it('accepts every pending invitation to an e-mail at once, oldest first, and no expired one', async () => {
      const owner = await newUser();
      const acme = await newOrganization(owner);
      const globex = await newOrganization(owner, 'Globex');
      const initech = await newOrganization(owner, 'Initech');
      const toAcme = await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-x1', { roles: [ADMIN] }));
      const toGlobex = await organizations().createInvitation(invitation(globex.id, 'ann@example.com', 'code-x2'));
      await organizations().createInvitation(invitation(initech.id, 'ann@example.com', 'code-x3', { expiresAt: 1_500 }));
      await organizations().createInvitation(invitation(initech.id, 'bob@example.com', 'code-x4'));
      const ann = await newUser();
      const accepted = await organizations().acceptInvitationsTo({ normalizedEmail: 'ann@example.com', userId: ann, now: 2_000 });
      expect(accepted.map((spent) => [spent.id, spent.acceptedAt])).toEqual([[toAcme.id, 2_000], [toGlobex.id, 2_000]]);
      expect((await organizations().listForUser(ann)).map(({ organization, roles }) => [organization.id, roles])).toEqual([[acme.id, [ADMIN]], [globex.id, [MEMBER]]]);
      expect(await organizations().acceptInvitationsTo({ normalizedEmail: 'ann@example.com', userId: ann, now: 2_000 })).toEqual([]);
      expect(await organizations().findInvitation(hashOf('code-x4'), 2_000)).not.toBeNull();
    });

    it('keeps an invitation whose inviter is deleted, with no inviter', async () => {
      const owner = await newUser();
      const inviter = await newUser();
      const acme = await newOrganization(owner);
      await organizations().addMember({ organizationId: acme.id, userId: inviter, roles: [ADMIN], joinedAt: 2_000 });
      await organizations().createInvitation(invitation(acme.id, 'ann@example.com', 'code-i', { invitedBy: inviter }));
      await store().users.delete(inviter);
      expect(await organizations().findInvitation(hashOf('code-i'), 2_000)).toMatchObject({ invitation: { invitedBy: null } });
    });
  });
});

/** An invitation of `organizationId` to `email` with the code `code` (its hash stored). */
function invitation(organizationId: number, email: string, code: string, overrides: Partial<NewOrganizationInvitation> = {}): NewOrganizationInvitation {
  return {
    organizationId,
    email,
    normalizedEmail: email.toLowerCase(),
    roles: [MEMBER],
    invitedBy: null,
    createdAt: 1_000,
    expiresAt: 5_000,
    codeHash: hashOf(code),
    ...overrides,
  };
}

/** Stands for the code's SHA-256: the store only compares what it is given. */
function hashOf(code: string): string {
  return `sha256:${code}`;
}

describe.each(engines)('Migration 0016 on $label, over a table organizations that exists', (engine) => {
  const opened: Store[] = [];
  const open = async (databaseUrl: string) => {
    const store = await createStore(databaseUrl, engine.tables);
    opened.push(store);
    return store;
  };
  const closeAll = () => Promise.all(opened.splice(0).map((store) => store.close()));

  /** A database with Gatehouse's migrations up to 0015, and `organizations` as `create` makes it. */
  async function before0016(create: (db: Kysely<any>, table: string) => Promise<void>): Promise<{ store: Store; db: Kysely<any> }> {
    const store = await open(await engine.createDatabaseUrl());
    const db = store.database.kysely<any>();
    const naming = tableNaming(engine.engine, engine.tables);
    const migrator = new Migrator({
      db,
      provider: migrationProvider(engine.engine, (migrationDb) => naming.on(migrationDb)),
      migrationTableName: naming.migrationTable,
      migrationLockTableName: naming.migrationLockTable,
      ...(naming.schema === undefined ? {} : { migrationTableSchema: naming.schema }),
    });
    const { error } = await migrator.migrateTo('0015-passkeys');
    if (error !== undefined) throw error;
    await create(db, engine.table('organizations'));
    return { store, db };
  }

  it('adopts the reference service’s table: rows, ids and settings kept, a slug for each name', async () => {
    try {
      const { store, db } = await before0016(async (db, table) => {
        await db.schema
          .createTable(table)
          .addColumn('id', 'integer', autoId(engine.engine))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        for (const [index, name] of ['Acme', 'Acme', 'Ünïcode Café', '!'].entries()) {
          await db.insertInto(table).values({ name, settings: `{"n":${index}}`, created_at: 100 + index }).execute();
        }
      });
      const table = engine.table('organizations');
      const ids = (await db.selectFrom(table).select('id').orderBy('id').execute()).map((row) => Number(row.id));
      await store.migrate();

      const rows = await db.selectFrom(table).select(['id', 'name', 'settings', 'slug']).orderBy('id').execute();
      expect(rows.map((row) => ({ ...row, id: Number(row.id) }))).toEqual([
        { id: ids[0], name: 'Acme', settings: '{"n":0}', slug: 'acme' },
        { id: ids[1], name: 'Acme', settings: '{"n":1}', slug: 'acme-2' },
        { id: ids[2], name: 'Ünïcode Café', settings: '{"n":2}', slug: 'unicode-cafe' },
        { id: ids[3], name: '!', settings: '{"n":3}', slug: 'organization' },
      ]);
      // The store works on it: the slugs are unique, and a new organization takes a new id.
      const owner = await store.users.create({ email: 'o@example.com', normalizedEmail: 'o@example.com', userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 });
      await expect(store.organizations.create({ name: 'Acme', slug: 'acme-2', createdAt: 1 }, { userId: owner.id, roles: [OWNER] })).rejects.toMatchObject({ field: 'slug' });
      const created = await store.organizations.create({ name: 'Acme', slug: 'acme-3', createdAt: 1 }, { userId: owner.id, roles: [OWNER] });
      expect(created.id).toBeGreaterThan(ids[3]!);
      expect((await store.organizations.list()).map(({ slug, members }) => [slug, members])).toEqual([
        ['acme', 0], ['acme-2', 0], ['unicode-cafe', 0], ['organization', 0], ['acme-3', 1],
      ]);
      // The application's column keeps its default for rows Gatehouse writes.
      expect((await db.selectFrom(table).select('settings').where('id', '=', created.id).executeTakeFirstOrThrow()).settings).toBe('{}');
    } finally {
      await closeAll();
    }
  });

  it('refuses a table of another shape, naming it and the table prefix, and leaves it as it was', async () => {
    try {
      const { store, db } = await before0016(async (db, table) => {
        await db.schema
          .createTable(table)
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('title', 'text', (c) => c.notNull())
          .execute();
        await db.insertInto(table).values({ id: 'acme', title: 'Acme' }).execute();
      });
      const table = engine.table('organizations');
      await expect(store.migrate()).rejects.toThrow(new RegExp(`A table "${table}" exists already.*set DATABASE_TABLE_PREFIX`));
      expect(await db.selectFrom(table).selectAll().execute()).toEqual([{ id: 'acme', title: 'Acme' }]);
    } finally {
      await closeAll();
    }
  });
});
