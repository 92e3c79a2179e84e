/**
 * A requirement about one invoice, with its handler (ASP.NET's resource-based authorization with
 * an operation requirement): the owner may read and update their invoice; an accountant may read
 * any invoice but update none.
 */
import { type AuthorizationHandlerContext, type AuthorizationRequirement, ResourceRequirementHandler } from 'gatehouse-auth';
import { type Invoice, isInvoice } from './invoice.ts';

export type InvoiceOperation = 'read' | 'update';

export class InvoiceOwnerOrAccountant implements AuthorizationRequirement {
  readonly description: string;

  constructor(readonly operation: InvoiceOperation) {
    this.description = operation === 'read' ? 'the invoice owner or an accountant' : 'the invoice owner';
  }
}

/**
 * Runs only when the check is given an invoice: a route-level policy (which has no resource)
 * naming this requirement is never met, so it cannot be used by mistake without one.
 */
export class InvoiceOwnerOrAccountantHandler extends ResourceRequirementHandler<InvoiceOwnerOrAccountant, Invoice> {
  constructor() {
    super(InvoiceOwnerOrAccountant, isInvoice);
  }

  protected handleRequirement(context: AuthorizationHandlerContext, requirement: InvoiceOwnerOrAccountant, invoice: Invoice): void {
    if (context.user.subject === String(invoice.ownerId)) context.succeed(requirement);
    else if (requirement.operation === 'read' && context.user.isInRole('Accountant')) context.succeed(requirement);
  }
}
