import { sql, type Kysely, type SelectQueryNode, type TableNode } from 'kysely';
import { slugCandidate, slugFromName } from '../../organizations/organization-slug.ts';
import type { StoreEngine } from '../ports.ts';
import { autoId, binaryText, idType } from './columns.ts';

/**
 * Organizations (docs/decisions/0092-organizations-model.md): the organizations, their members
 * with their organization roles, invitations, and the active organization remembered on the user
 * and carried by each cookie session and refresh family.
 *
 * The reference service has had a table `organizations` (`id`, `name`, `settings`, `created_at`)
 * since its first migration, and databases made before decision 0045 got it from `0001-initial`.
 * Such a table is adopted: it gets a unique `slug`, made from each name, and keeps its other
 * columns for whoever owns them. Any other table of that name stops the migration, pointing to
 * the table prefix: Gatehouse's migrations run before the application's, and must not take over
 * a table they cannot read.
 */

// Migrations see the schema as it was when they were written, not today's `Database` type.
type AnyDatabase = Kysely<any>;

export async function up(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  const existing = await describeTable(db, engine, 'organizations');
  if (existing === null) await createOrganizations(db, engine);
  else await adoptOrganizations(db, engine, existing);
  await createMembers(db, engine);
  await createInvitations(db, engine);
  await addActiveOrganization(db);
}

async function createOrganizations(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('organizations')
    // Never handed out twice: a deleted organization's id may still be named by a token.
    .addColumn('id', idType(engine), autoId(engine))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint(SLUG_UNIQUE, ['slug'])
    .execute();
}

/** Named as `../kysely/store-errors.ts` knows it, whether a constraint (new table) or an index (adopted one). */
const SLUG_UNIQUE = 'organizations_slug_unique';

/**
 * Gives the existing table its slugs: `slugFromName` of each name, `-2`, `-3`, … on a collision,
 * in the order of the ids (the oldest keeps the plain one). PostgreSQL also makes the column NOT
 * NULL; SQLite cannot add that to a column without rebuilding the table (which would mean taking
 * over the application's columns), so there the unique index and the store, which always writes
 * a slug, keep it.
 */
async function adoptOrganizations(db: AnyDatabase, engine: StoreEngine, table: ExistingTable): Promise<void> {
  if (!isAdoptable(table)) {
    throw new Error(
      `A table ${table.name} exists already and is not one Gatehouse can adopt as its organizations ` +
        '(an integer primary key "id", a text "name", a "created_at", and no "slug"). It is probably the ' +
        "application's own: set DATABASE_TABLE_PREFIX (createStore's tablePrefix), or on PostgreSQL " +
        "DATABASE_SCHEMA (schema), so that Gatehouse's tables do not collide with the application's.",
    );
  }
  await db.schema.alterTable('organizations').addColumn('slug', 'text').execute();
  const rows = await db.selectFrom('organizations').select(['id', 'name']).orderBy('id').execute();
  const taken = new Set<string>();
  for (const row of rows) {
    const slug = freeSlug(slugFromName(String(row.name ?? '')), taken);
    taken.add(slug);
    await db.updateTable('organizations').set({ slug }).where('id', '=', row.id).execute();
  }
  if (engine === 'postgres') await db.schema.alterTable('organizations').alterColumn('slug', (c) => c.setNotNull()).execute();
  await db.schema.createIndex(SLUG_UNIQUE).on('organizations').column('slug').unique().execute();
}

function freeSlug(base: string, taken: ReadonlySet<string>): string {
  for (let attempt = 1; ; attempt += 1) {
    const candidate = slugCandidate(base, attempt);
    if (!taken.has(candidate)) return candidate;
  }
}

async function createMembers(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('organization_members')
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('joined_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_members_pkey', ['organization_id', 'user_id'])
    .execute();
  // A user's organizations; and a user's deletion, which cascades here.
  await db.schema.createIndex('organization_members_user_id_index').on('organization_members').column('user_id').execute();

  await db.schema
    .createTable('organization_member_roles')
    .addColumn('organization_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    // Case-sensitive and sorted byte-wise, as the global roles are.
    .addColumn('role', 'text', binaryText(engine, (c) => c.notNull()))
    .addPrimaryKeyConstraint('organization_member_roles_pkey', ['organization_id', 'user_id', 'role'])
    // A role is held only by a member: it goes with the membership (and so with the
    // organization or the user).
    .addForeignKeyConstraint(
      'organization_member_roles_member_fkey',
      ['organization_id', 'user_id'],
      'organization_members',
      ['organization_id', 'user_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  // The holders of a role in an organization: its owners, for the last-owner rule.
  await db.schema
    .createIndex('organization_member_roles_role_index')
    .on('organization_member_roles')
    .columns(['organization_id', 'role'])
    .execute();
}

async function createInvitations(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  await db.schema
    .createTable('organization_invitations')
    .addColumn('id', idType(engine, true), autoId(engine))
    .addColumn('organization_id', 'integer', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // As the inviter typed it (the mail goes there), and the form an accepting user's e-mail must equal.
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('normalized_email', 'text', (c) => c.notNull())
    // The roles it makes its invitee a member with, a JSON array.
    .addColumn('roles', 'text', (c) => c.notNull())
    // SHA-256 of the code, hex: the code itself is never stored.
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addUniqueConstraint('organization_invitations_code_hash_unique', ['code_hash'])
    .execute();
  // An organization's pending invitations, and those to one e-mail that a new one revokes.
  await db.schema
    .createIndex('organization_invitations_email_index')
    .on('organization_invitations')
    .columns(['organization_id', 'normalized_email'])
    .execute();
  // A user's deletion sets their invitations' inviter to null.
  await db.schema.createIndex('organization_invitations_invited_by_index').on('organization_invitations').column('invited_by').execute();
}

/**
 * The remembered choice (users) and the current one (sessions, refresh families), forgotten when
 * the organization goes. Indexed: PostgreSQL does not index foreign keys by itself, and the
 * deletion of an organization would scan every session.
 */
const ACTIVE_ORGANIZATION = [
  { table: 'users', column: 'active_organization_id' },
  { table: 'sessions', column: 'organization_id' },
  { table: 'refresh_families', column: 'organization_id' },
] as const;

async function addActiveOrganization(db: AnyDatabase): Promise<void> {
  for (const { table, column } of ACTIVE_ORGANIZATION) {
    // SQLite adds a column with REFERENCES as long as its default is NULL.
    await db.schema
      .alterTable(table)
      .addColumn(column, 'integer', (c) => c.references('organizations.id').onDelete('set null'))
      .execute();
    await db.schema.createIndex(`${table}_${column}_index`).on(table).column(column).execute();
  }
}

export async function down(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  for (const { table, column } of ACTIVE_ORGANIZATION) {
    await db.schema.dropIndex(`${table}_${column}_index`).ifExists().execute();
    await db.schema.alterTable(table).dropColumn(column).execute();
  }
  await db.schema.dropTable('organization_invitations').ifExists().execute();
  await db.schema.dropTable('organization_member_roles').ifExists().execute();
  await db.schema.dropTable('organization_members').ifExists().execute();
  await dropOrganizations(db, engine);
}

/** The table as it was: gone when Gatehouse made it; without its slug when it was adopted. */
async function dropOrganizations(db: AnyDatabase, engine: StoreEngine): Promise<void> {
  const table = await describeTable(db, engine, 'organizations');
  if (table === null) return;
  const ours = new Set(['id', 'name', 'slug', 'created_at']);
  if (table.columns.every((column) => ours.has(column.name))) {
    await db.schema.dropTable('organizations').execute();
    return;
  }
  await db.schema.dropIndex(SLUG_UNIQUE).ifExists().execute();
  await db.schema.alterTable('organizations').dropColumn('slug').execute();
}

interface ExistingTable {
  /** As the database names it (schema and prefix included), for a message. */
  readonly name: string;
  /** Only ordinary tables can be adopted (not a view). */
  readonly isTable: boolean;
  readonly columns: readonly ExistingColumn[];
}

interface ExistingColumn {
  readonly name: string;
  /** The declared type, lower case (`integer`, `bigint`, `text`, `character varying`, …). */
  readonly type: string;
  /** Part of the primary key. */
  readonly primaryKey: boolean;
}

function isAdoptable(table: ExistingTable): boolean {
  const column = (name: string) => table.columns.find((candidate) => candidate.name === name);
  const id = column('id');
  const name = column('name');
  const primaryKey = table.columns.filter((candidate) => candidate.primaryKey);
  return (
    table.isTable &&
    id !== undefined &&
    isInteger(id.type) &&
    // The foreign keys to it need `id` to be its key, alone.
    primaryKey.length === 1 &&
    primaryKey[0] === id &&
    name !== undefined &&
    isText(name.type) &&
    column('created_at') !== undefined &&
    column('slug') === undefined
  );
}

// SQLite's type affinity rules (any declared type with INT is an integer; CHAR, CLOB or TEXT, text).
const isInteger = (type: string) => /int/.test(type);
const isText = (type: string) => /char|clob|text/.test(type);

/**
 * The table of that name where the store's queries find it (the naming plugins on `db` give it
 * its prefix and schema), with its columns; null when there is none.
 */
async function describeTable(db: AnyDatabase, engine: StoreEngine, table: string): Promise<ExistingTable | null> {
  const { schema, name } = placeOf(db, table);
  const plain = db.withoutPlugins();
  const shown = `"${schema === undefined ? '' : `${schema}.`}${name}"`;
  if (engine === 'sqlite') {
    const kind = await sql<{ type: string }>`select type from sqlite_master where type in ('table', 'view') and name = ${name} collate nocase`.execute(plain);
    if (kind.rows.length === 0) return null;
    const columns = await sql<{ name: string; type: string; pk: number }>`select name, type, pk from pragma_table_info(${name})`.execute(plain);
    return {
      name: shown,
      isTable: kind.rows[0]!.type === 'table',
      columns: columns.rows.map((column) => ({ name: column.name, type: column.type.toLowerCase(), primaryKey: column.pk > 0 })),
    };
  }
  const columns = await sql<{ name: string; type: string; primary_key: boolean; kind: string }>`
    select a.attname as name, format_type(a.atttypid, null) as type, c.relkind as kind,
      exists (select 1 from pg_index i where i.indrelid = c.oid and i.indisprimary and a.attnum = any (i.indkey)) as primary_key
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    where c.relname = ${name} and n.nspname = coalesce(${schema ?? null}::text, current_schema())
  `.execute(plain);
  if (columns.rows.length === 0) return null;
  return {
    name: shown,
    isTable: ['r', 'p'].includes(columns.rows[0]!.kind),
    columns: columns.rows.map((column) => ({ name: column.name, type: column.type.toLowerCase(), primaryKey: column.primary_key })),
  };
}

/** Where a query through `db` names `table`: its schema (if the store has one) and its prefixed name. */
function placeOf(db: AnyDatabase, table: string): { schema: string | undefined; name: string } {
  const query = db.selectFrom(table).selectAll().toOperationNode() as SelectQueryNode;
  const from = query.from?.froms[0] as TableNode | undefined;
  if (from?.kind !== 'TableNode') throw new Error(`The name of the table ${table} could not be resolved.`);
  return { schema: from.table.schema?.name, name: from.table.identifier.name };
}
