/** The application's own resource: an invoice, owned by the Gatehouse user who wrote it. */
export type InvoiceStatus = 'draft' | 'sent' | 'paid';

export interface Invoice {
  readonly id: number;
  /** The owner's Gatehouse user id (the `sub` of their tokens). */
  readonly ownerId: number;
  readonly customer: string;
  readonly amountCents: number;
  readonly status: InvoiceStatus;
  readonly createdAt: string;
}

/** What the resource handler reads of an invoice: records are plain objects, so test their shape. */
export function isInvoice(resource: unknown): resource is Invoice {
  const candidate = resource as Partial<Invoice> | null;
  return typeof candidate?.ownerId === 'number' && typeof candidate.id === 'number';
}
