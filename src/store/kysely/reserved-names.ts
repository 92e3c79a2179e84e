/**
 * Names the database engines keep for themselves. PostgreSQL searches `pg_catalog` before any
 * schema of the search path, so a table `pg_roles` of ours would never be the one a query reads:
 * a `pg_` prefix turns `roles` into the system view. SQLite refuses to create `sqlite_` tables.
 * `pg_…` schemas are reserved by PostgreSQL, and `information_schema` is the SQL standard's.
 */
export function isReservedTablePrefix(prefix: string): boolean {
  return prefix.startsWith('pg_') || prefix.startsWith('sqlite_');
}

export function isSystemSchema(schema: string): boolean {
  return schema.startsWith('pg_') || schema === 'information_schema';
}
