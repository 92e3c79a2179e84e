/**
 * The application's named policies, and their names declared to Gatehouse: a misspelt name is a
 * compile error wherever a route, a group or a resource check names it.
 */
import {
  type AuthorizationHandler,
  type AuthorizationPolicy,
  AuthorizationPolicyBuilder,
  ClaimTypes,
  UserSubjectRequirement,
} from 'gatehouse-auth';
import type { PolicyName } from 'gatehouse-auth/fastify';
import { InvoiceOwnerOrAccountant, InvoiceOwnerOrAccountantHandler } from './invoice-owner-or-accountant.ts';

// `gatehouse-auth/fastify` exports the same interface as `gatehouse-auth`: a Fastify application
// may declare its names on either module, as this one does on the entry point it registers.
declare module 'gatehouse-auth/fastify' {
  interface GatehousePolicies {
    /** A signed-in person (not an integration's API key): the invoices routes. */
    Customers: true;
    /** Resource checks on one invoice. */
    ReadInvoice: true;
    UpdateInvoice: true;
    /** The bookkeeping integration, by API key. */
    Bookkeeping: true;
  }
}

/** The client name the bookkeeping integration's API keys are created for. */
export const BOOKKEEPING_CLIENT = 'bookkeeping';

/** Typed by the declared names: leaving one out, or adding an undeclared one, does not compile. */
export function invoicePolicies(): Record<PolicyName, AuthorizationPolicy> {
  const policy = () => new AuthorizationPolicyBuilder().requireAuthenticatedUser();
  return {
    Customers: policy().addRequirement(new UserSubjectRequirement()).build(),
    ReadInvoice: policy().addRequirement(new InvoiceOwnerOrAccountant('read')).build(),
    UpdateInvoice: policy().addRequirement(new InvoiceOwnerOrAccountant('update')).build(),
    // An API-key caller's principal carries its client name as the `client` claim; the route
    // names the scheme (`schemes: ['ApiKey']`), so a bearer token is not even read there.
    Bookkeeping: policy().requireClaim(ClaimTypes.client, BOOKKEEPING_CLIENT).build(),
  };
}

export function invoiceHandlers(): AuthorizationHandler[] {
  return [new InvoiceOwnerOrAccountantHandler()];
}
