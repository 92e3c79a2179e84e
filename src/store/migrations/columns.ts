import { sql, type ColumnDefinitionBuilder } from 'kysely';
import type { StoreEngine } from '../ports.ts';

/**
 * The few column shapes whose SQL differs between the engines; everything else in a migration
 * is written once.
 */

type ColumnBuilder = (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;

/** The type of an auto-assigned id: SQLite's AUTOINCREMENT only works on exactly `integer`. */
export function idType(engine: StoreEngine, wide = false): 'integer' | 'bigint' {
  return engine === 'postgres' && wide ? 'bigint' : 'integer';
}

/**
 * An id the database assigns and never hands out twice. Without AUTOINCREMENT SQLite reuses the
 * highest rowid after a delete, and a deleted user's tokens (which name the id) would fit the
 * next user; identity columns in PostgreSQL never go back.
 */
export function autoId(engine: StoreEngine): ColumnBuilder {
  return (column) =>
    engine === 'sqlite' ? column.primaryKey().autoIncrement() : column.primaryKey().generatedByDefaultAsIdentity();
}

/**
 * Byte-wise comparison and ordering (SQLite's default BINARY collation) for text that is sorted
 * or compared case-sensitively, so both engines order names alike whatever the database locale.
 */
export function binaryText(engine: StoreEngine, build: ColumnBuilder = (column) => column): ColumnBuilder {
  return (column) => (engine === 'postgres' ? build(column).modifyEnd(sql`collate "C"`) : build(column));
}
