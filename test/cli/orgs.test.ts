/**
 * `gatehouse orgs …` as a user runs it (docs/reference/cli.md): `node bin/gatehouse.js …` in its own
 * process against `DATABASE_URL`, on each store engine. What the commands changed is read back
 * through `orgs list --json` and through a store opened on the same database (its members, its
 * audit trail): a refusal must leave both as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../src/identity/normalize.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { AuditEvent, Store, User } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { runCli, type RunResult, useProcessCleanup } from '../helpers/processes.ts';

const engines = await testEngines();

/** One line of `orgs list --json`. */
interface OrganizationLine {
  id: number;
  name: string;
  slug: string;
  members: number;
}

/** A line of a stack trace (`    at fn (file:1:2)`). */
const STACK_FRAME = /^\s*at .*\(/m;
const ID_LINE = /^[1-9]\d*\n$/;

let counter = 0;
const uniqueEmail = (label: string) => `${label}-${++counter}-${process.pid}@example.com`;
const uniqueName = (label: string) => `${label} ${++counter}-${process.pid}`;

function expectRefused(result: RunResult, reason?: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  // One line, no stack trace.
  expect(result.stderr).toMatch(/^[^\n]+\n$/);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  if (reason) expect(result.stderr).toMatch(reason);
}

function expectUsageError(result: RunResult): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toBe('');
  expect(result.stderr).not.toMatch(STACK_FRAME);
}

function expectDone(result: RunResult): void {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
}

/** `text` as a literal inside a pattern (e-mails hold dots and pluses). */
const literally = (text: string) => new RegExp(text.replace(/[.+]/g, '\\$&'));

useProcessCleanup({ afterEachTest: false });

describe.concurrent.each(engines)('gatehouse orgs on $engine', (engine) => {
  describe.sequential('against one database', { timeout: 60_000 }, () => {
    let databaseUrl: string;
    /** The same database as the commands see it, to read what they changed. */
    let store: Store;

    // No ORGANIZATION_ROLES unless a test sets it, whatever the test runner's environment holds.
    const cli = (...args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, ORGANIZATION_ROLES: undefined });
    const withRoles = (roles: string, ...args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, ORGANIZATION_ROLES: roles });

    async function createUser(label: string): Promise<User> {
      const email = uniqueEmail(label);
      return store.users.create({
        email,
        normalizedEmail: normalizeEmail(email),
        userName: null,
        normalizedUserName: null,
        passwordHash: null,
        emailConfirmed: true,
        createdAt: Date.now(),
      });
    }

    /** `orgs create` for a new owner: the organization's id and its owner. */
    async function createOrganization(name = uniqueName('Org')): Promise<{ id: number; owner: User }> {
      const owner = await createUser('owner');
      const result = await cli('orgs', 'create', '--name', name, '--owner-email', owner.email);
      expectDone(result);
      expect(result.stdout).toMatch(ID_LINE);
      return { id: Number(result.stdout), owner };
    }

    async function listOrganizations(): Promise<OrganizationLine[]> {
      const result = await cli('orgs', 'list', '--json');
      expectDone(result);
      const lines = result.stdout.split('\n');
      expect(lines.pop()).toBe('');
      return lines.map((line) => JSON.parse(line) as OrganizationLine);
    }

    async function rolesOf(organizationId: number, userId: number): Promise<readonly string[] | undefined> {
      const members = await store.organizations.listMembers(organizationId);
      return members.find((member) => member.userId === userId)?.roles;
    }

    async function auditEvents(type: string): Promise<AuditEvent[]> {
      return (await store.audit.list({ limit: 50 })).filter((event) => event.type === type);
    }

    beforeAll(async () => {
      databaseUrl = await engine.createMigratedDatabaseUrl();
      store = await createStore(databaseUrl);
    });

    afterAll(async () => {
      await store?.close();
      await engine.dropAll();
    });

    describe('orgs create', () => {
      it('prints only the new id; the owner is its member with OrgOwner and OrgAdmin, and the slug comes from the name', async () => {
        const unique = `${++counter}-${process.pid}`;
        const [name, slug] = [`Acme Corp ${unique}`, `acme-corp-${unique}`];
        const { id, owner } = await createOrganization(name);

        const memberships = await store.organizations.listForUser(owner.id);
        expect(memberships).toHaveLength(1);
        expect(memberships[0]!.organization).toMatchObject({ id, name, slug });
        expect(memberships[0]!.roles).toEqual(['OrgAdmin', 'OrgOwner']);
        expect((await listOrganizations()).find((line) => line.id === id)).toEqual({ id, name, slug, members: 1 });
      });

      it('takes --slug as given, and refuses a taken slug with exit 1, creating nothing', async () => {
        const owner = await createUser('slugged');
        const slug = `acme-${counter}-${process.pid}`;
        const created = await cli('orgs', 'create', '--name', 'Acme', '--slug', slug, '--owner-email', owner.email);
        expectDone(created);
        expect((await store.organizations.findById(Number(created.stdout)))?.slug).toBe(slug);

        const before = await store.organizations.list();
        expectRefused(await cli('orgs', 'create', '--name', 'Other', '--slug', slug, '--owner-email', owner.email), /slug/);
        expect(await store.organizations.list()).toEqual(before);
      });

      it('refuses an unknown owner e-mail, a blank name and a malformed slug with exit 1, creating nothing', async () => {
        const owner = await createUser('refused');
        const nobody = uniqueEmail('nobody');
        const before = await store.organizations.list();
        const [unknown, blank, badSlug] = await Promise.all([
          cli('orgs', 'create', '--name', uniqueName('Ghost'), '--owner-email', nobody),
          cli('orgs', 'create', '--name', '   ', '--owner-email', owner.email),
          cli('orgs', 'create', '--name', uniqueName('Bad'), '--slug', 'Not A Slug', '--owner-email', owner.email),
        ]);
        expectRefused(unknown, literally(nobody));
        expectRefused(blank, /name/);
        expectRefused(badSlug, /slug/);
        expect(await store.organizations.list()).toEqual(before);
        expect(await store.organizations.listForUser(owner.id)).toEqual([]);
      });

      it('treats a missing --name or --owner-email, and an unknown flag, as bad usage (exit 2)', async () => {
        const owner = await createUser('usage');
        const results = await Promise.all([
          cli('orgs', 'create', '--owner-email', owner.email),
          cli('orgs', 'create', '--name', 'Acme'),
          cli('orgs', 'create', '--name', 'Acme', '--owner-email', owner.email, '--owner', owner.email),
        ]);
        for (const result of results) expectUsageError(result);
        expect(await store.organizations.listForUser(owner.id)).toEqual([]);
      });
    });

    describe('orgs members add', () => {
      it('makes a user a member with every --role, prints nothing, and adds further roles to theirs', async () => {
        const { id } = await createOrganization();
        const member = await createUser('member');
        const added = await cli('orgs', 'members', 'add', '--org', String(id), '--email', member.email, '--role', 'OrgMember', '--role', 'OrgAdmin');
        expectDone(added);
        expect(added.stdout).toBe('');
        expect(await rolesOf(id, member.id)).toEqual(['OrgAdmin', 'OrgMember']);

        expectDone(await cli('orgs', 'members', 'add', '--org', String(id), '--email', member.email, '--role', 'OrgOwner'));
        expect(await rolesOf(id, member.id)).toEqual(['OrgAdmin', 'OrgMember', 'OrgOwner']);
      });

      it('refuses an undeclared role with exit 1 naming it, and writes nothing', async () => {
        const { id } = await createOrganization();
        const member = await createUser('undeclared');
        const result = await cli('orgs', 'members', 'add', '--org', String(id), '--email', member.email, '--role', 'OrgMember', '--role', 'Billing');
        expectRefused(result, /Billing/);
        expect(await rolesOf(id, member.id)).toBeUndefined();
        expect((await auditEvents('org.member.added')).filter((event) => event.userId === member.id)).toEqual([]);
      });

      it('takes a role of ORGANIZATION_ROLES, and refuses the global role Admin (exit 1) even then', async () => {
        const { id } = await createOrganization();
        const [billing, admin] = [await createUser('billing'), await createUser('admin')];
        const [declared, global] = await Promise.all([
          withRoles('Billing', 'orgs', 'members', 'add', '--org', String(id), '--email', billing.email, '--role', 'Billing'),
          withRoles('Billing', 'orgs', 'members', 'add', '--org', String(id), '--email', admin.email, '--role', 'Admin'),
        ]);
        expectDone(declared);
        expect(await rolesOf(id, billing.id)).toEqual(['Billing']);
        expectRefused(global, /Admin/);
        expect(await rolesOf(id, admin.id)).toBeUndefined();
      });

      it('refuses an unknown organization id and an unknown e-mail with exit 1, and writes nothing', async () => {
        const { id } = await createOrganization();
        const member = await createUser('lost');
        const nobody = uniqueEmail('nobody');
        const [unknownOrganization, unknownUser] = await Promise.all([
          cli('orgs', 'members', 'add', '--org', '987654321', '--email', member.email, '--role', 'OrgMember'),
          cli('orgs', 'members', 'add', '--org', String(id), '--email', nobody, '--role', 'OrgMember'),
        ]);
        expectRefused(unknownOrganization, /987654321/);
        expectRefused(unknownUser, literally(nobody));
        expect(await store.organizations.listForUser(member.id)).toEqual([]);
        expect(await store.organizations.listMembers(id)).toHaveLength(1);
      });

      it('treats a missing --role, an --org that is no id, and another action as bad usage (exit 2)', async () => {
        const { id } = await createOrganization();
        const member = await createUser('usage');
        const results = await Promise.all([
          cli('orgs', 'members', 'add', '--org', String(id), '--email', member.email),
          cli('orgs', 'members', 'add', '--org', 'acme', '--email', member.email, '--role', 'OrgMember'),
          cli('orgs', 'members', 'remove', '--org', String(id), '--email', member.email, '--role', 'OrgMember'),
          cli('orgs'),
        ]);
        for (const result of results) expectUsageError(result);
        expect(results[0]!.stderr).toMatch(/--role/);
        expect(results[1]!.stderr).toMatch(/--org/);
        expect(await rolesOf(id, member.id)).toBeUndefined();
      });
    });

    describe('orgs list', () => {
      it('prints one JSON object a line with exactly id, name, slug and the member count; a table without --json', async () => {
        const { id } = await createOrganization(uniqueName('Counted'));
        const [first, second] = [await createUser('first'), await createUser('second')];
        for (const user of [first, second]) {
          expectDone(await cli('orgs', 'members', 'add', '--org', String(id), '--email', user.email, '--role', 'OrgMember'));
        }

        const lines = await listOrganizations();
        expect(lines.length).toBe((await store.organizations.list()).length);
        for (const line of lines) expect(Object.keys(line).sort()).toEqual(['id', 'members', 'name', 'slug']);
        const counted = lines.find((line) => line.id === id)!;
        expect(counted.members).toBe(3);

        const table = await cli('orgs', 'list');
        expectDone(table);
        expect(table.stdout.split('\n')).toContain(`${id}\t${counted.slug}\t3 members\t${counted.name}`);
      });
    });

    it('leaves org.created and org.member.added in the audit trail, with the organization and the command line as who', async () => {
      const { id, owner } = await createOrganization();
      const member = await createUser('audited');
      expectDone(await cli('orgs', 'members', 'add', '--org', String(id), '--email', member.email, '--role', 'OrgMember'));

      const created = (await auditEvents('org.created')).find((event) => event.detail?.organizationId === id);
      expect(created).toMatchObject({ userId: owner.id, detail: { organizationId: id, by: 'cli' } });
      const added = (await auditEvents('org.member.added')).find((event) => event.detail?.organizationId === id);
      expect(added).toMatchObject({ userId: member.id, detail: { organizationId: id, roles: ['OrgMember'], by: 'cli' } });
    });
  });
});
