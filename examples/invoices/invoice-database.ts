/**
 * The application's own table, `invoices`, in Gatehouse's database and on its connections
 * (`store.database`). Its migration is given to `createStore` and run by `store.migrate()` after
 * Gatehouse's, recorded apart from them; the owner is a foreign key to Gatehouse's users, so an
 * account's invoices go with it.
 */
import type { Generated, Kysely } from 'kysely';
import type { ApplicationMigrations } from 'gatehouse-auth/store';
import type { Invoice, InvoiceStatus } from './invoice.ts';

interface InvoiceTable {
  id: Generated<number>;
  owner_id: number;
  customer: string;
  amount_cents: number;
  status: InvoiceStatus;
  created_at: string;
}

export interface InvoiceSchema {
  invoices: InvoiceTable;
}

export const invoiceMigrations: ApplicationMigrations = {
  '0001-invoices': {
    async up(db, { engine, tableName }) {
      await db.schema
        .createTable('invoices')
        .addColumn('id', 'integer', (column) =>
          engine === 'postgres' ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey().autoIncrement(),
        )
        .addColumn('owner_id', 'integer', (column) => column.notNull().references(`${tableName('users')}.id`).onDelete('cascade'))
        .addColumn('customer', 'text', (column) => column.notNull())
        .addColumn('amount_cents', 'integer', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('invoices_owner_id').on('invoices').column('owner_id').execute();
    },
  },
};

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
