/**
 * The application's own table, `invoices`, in the same database as Gatehouse's tables, through a
 * connection of its own (Kysely). Its migrations are recorded in tables of their own
 * (`invoices_migration`), apart from Gatehouse's, so neither migrator sees the other's history.
 */
import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Generated, Kysely, type Migration, type MigrationProvider, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { StoreEngine } from 'gatehouse-auth/store';
import type { Invoice, InvoiceStatus } from './invoice.ts';

interface InvoiceTable {
  id: Generated<number>;
  owner_id: number;
  customer: string;
  amount_cents: number;
  status: InvoiceStatus;
  created_at: string;
}

interface InvoiceSchema {
  invoices: InvoiceTable;
}

/** How long a write waits for Gatehouse's connection to release SQLite's write lock. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** A Kysely connection on the same `DATABASE_URL` that Gatehouse's store uses. */
export function openInvoiceDatabase(databaseUrl: string): Kysely<InvoiceSchema> {
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    // An in-memory database belongs to one connection: the invoices could not sit beside Gatehouse's tables.
    if (path === ':memory:') throw new Error('The invoices example needs a database file (sqlite:./data/invoices.db) or PostgreSQL, not sqlite::memory:.');
    const database = new BetterSqlite3(resolve(path), { timeout: SQLITE_BUSY_TIMEOUT_MS });
    return new Kysely<InvoiceSchema>({ dialect: new SqliteDialect({ database }) });
  }
  return new Kysely<InvoiceSchema>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 5 }) }) });
}

/** Applies the invoices table's pending migrations (after Gatehouse's: `store.migrate()`). */
export async function migrateInvoices(db: Kysely<InvoiceSchema>, engine: StoreEngine): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: invoiceMigrations(engine),
    migrationTableName: 'invoices_migration',
    migrationLockTableName: 'invoices_migration_lock',
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}

function invoiceMigrations(engine: StoreEngine): MigrationProvider {
  const initial: Migration = {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('invoices')
        .ifNotExists()
        .addColumn('id', 'integer', (column) =>
          engine === 'postgres' ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey().autoIncrement(),
        )
        // Gatehouse's user id; no foreign key: Gatehouse's tables are its own to change.
        .addColumn('owner_id', 'integer', (column) => column.notNull())
        .addColumn('customer', 'text', (column) => column.notNull())
        .addColumn('amount_cents', 'integer', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('invoices_owner_id').ifNotExists().on('invoices').column('owner_id').execute();
    },
  };
  return { getMigrations: async () => ({ '0001-invoices': initial }) };
}

export interface NewInvoice {
  readonly ownerId: number;
  readonly customer: string;
  readonly amountCents: number;
}

export type InvoiceChanges = Partial<Pick<Invoice, 'customer' | 'amountCents' | 'status'>>;

/** The invoices table in the application's words. */
export class InvoiceRepository {
  constructor(private readonly db: Kysely<InvoiceSchema>) {}

  async create(invoice: NewInvoice, now: Date): Promise<Invoice> {
    const row = await this.db
      .insertInto('invoices')
      .values({ owner_id: invoice.ownerId, customer: invoice.customer, amount_cents: invoice.amountCents, status: 'draft', created_at: now.toISOString() })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toInvoice(row);
  }

  async find(id: number): Promise<Invoice | undefined> {
    const row = await this.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toInvoice(row);
  }

  async listOwnedBy(ownerId: number): Promise<Invoice[]> {
    const rows = await this.db.selectFrom('invoices').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute();
    return rows.map(toInvoice);
  }

  async listByStatus(status: InvoiceStatus | undefined): Promise<Invoice[]> {
    let query = this.db.selectFrom('invoices').selectAll().orderBy('id');
    if (status !== undefined) query = query.where('status', '=', status);
    return (await query.execute()).map(toInvoice);
  }

  /** The changed invoice; undefined when it is paid (checked in the same statement as the change). */
  async updateUnpaid(id: number, changes: InvoiceChanges): Promise<Invoice | undefined> {
    const row = await this.db
      .updateTable('invoices')
      .set({
        ...(changes.customer !== undefined ? { customer: changes.customer } : {}),
        ...(changes.amountCents !== undefined ? { amount_cents: changes.amountCents } : {}),
        ...(changes.status !== undefined ? { status: changes.status } : {}),
      })
      .where('id', '=', id)
      .where('status', '!=', 'paid')
      .returningAll()
      .executeTakeFirst();
    return row && toInvoice(row);
  }
}

function toInvoice(row: { id: number; owner_id: number; customer: string; amount_cents: number; status: InvoiceStatus; created_at: string }): Invoice {
  return { id: row.id, ownerId: row.owner_id, customer: row.customer, amountCents: row.amount_cents, status: row.status, createdAt: row.created_at };
}
