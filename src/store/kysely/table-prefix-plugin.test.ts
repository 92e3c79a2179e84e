import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, WithSchemaPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { TablePrefixPlugin } from './table-prefix-plugin.ts';

/** Compiles only: the SQL the plugin makes is what is asserted; the engines run it in test/contracts. */
function database(...plugins: Array<TablePrefixPlugin | WithSchemaPlugin>): Kysely<any> {
  return new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    plugins,
  });
}

const prefixed = database(new TablePrefixPlugin('gh_', ['users', 'roles', 'user_roles', 'sessions']));

describe('TablePrefixPlugin', () => {
  it('renames Gatehouse’s tables in from, joins and qualified columns, and leaves aliases and other tables alone', () => {
    const query = prefixed
      .selectFrom('users as u')
      .innerJoin('user_roles', 'user_roles.user_id', 'u.id')
      .innerJoin('invoices', 'invoices.owner_id', 'u.id')
      .select(['u.email', 'user_roles.role_id', 'invoices.total'])
      .compile();
    expect(query.sql).toBe(
      'select "u"."email", "gh_user_roles"."role_id", "invoices"."total" from "gh_users" as "u" ' +
        'inner join "gh_user_roles" on "gh_user_roles"."user_id" = "u"."id" inner join "invoices" on "invoices"."owner_id" = "u"."id"',
    );
  });

  it('renames the tables of inserts, updates, deletes and subqueries', () => {
    expect(prefixed.insertInto('sessions').values({ token_hash: 'h' }).compile().sql).toBe('insert into "gh_sessions" ("token_hash") values ($1)');
    expect(prefixed.updateTable('users').set({ email: 'e' }).compile().sql).toBe('update "gh_users" set "email" = $1');
    const deletion = prefixed
      .deleteFrom('sessions')
      .where('user_id', 'in', prefixed.selectFrom('users').select('id'))
      .compile();
    expect(deletion.sql).toBe('delete from "gh_sessions" where "user_id" in (select "id" from "gh_users")');
  });

  it('renames a table named with sql.table in raw SQL, not one written into its text', () => {
    const query = sql`select count(*) from ${sql.table('users')} join users_of_the_application on true`.compile(prefixed);
    expect(query.sql).toBe('select count(*) from "gh_users" join users_of_the_application on true');
  });

  it('prefixes the names of indexes and constraints, and the tables that foreign keys reference', () => {
    const table = prefixed.schema
      .createTable('user_roles')
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('role_id', 'integer')
      .addPrimaryKeyConstraint('user_roles_pkey', ['user_id', 'role_id'])
      .addUniqueConstraint('user_roles_role_unique', ['role_id'])
      .addCheckConstraint('user_roles_positive', sql`role_id > 0`)
      .compile();
    expect(table.sql).toBe(
      'create table "gh_user_roles" ("user_id" integer references "gh_users" ("id") on delete cascade, "role_id" integer, ' +
        'constraint "gh_user_roles_pkey" primary key ("user_id", "role_id"), constraint "gh_user_roles_role_unique" unique ("role_id"), ' +
        'constraint "gh_user_roles_positive" check (role_id > 0))',
    );
    expect(prefixed.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').compile().sql).toBe(
      'create index "gh_sessions_user_id_index" on "gh_sessions" ("user_id")',
    );
    expect(prefixed.schema.dropIndex('users_external_id_unique').compile().sql).toBe('drop index "gh_users_external_id_unique"');
  });

  it('goes before the schema plugin, which then qualifies the prefixed names', () => {
    const inSchema = database(new TablePrefixPlugin('gh_', ['users', 'sessions']), new WithSchemaPlugin('gatehouse'));
    expect(inSchema.selectFrom('users').select('users.id').compile().sql).toBe('select "gatehouse"."gh_users"."id" from "gatehouse"."gh_users"');
    expect(inSchema.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').compile().sql).toBe(
      'create index "gh_sessions_user_id_index" on "gatehouse"."gh_sessions" ("user_id")',
    );
  });
});
