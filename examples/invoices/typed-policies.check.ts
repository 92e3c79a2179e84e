/**
 * Compiled, never run: a misspelt policy name is a compile error wherever a policy is named.
 * Each `@ts-expect-error` below fails the build if its line compiles (if the names were not
 * declared, every string would be accepted and these lines would break the build instead).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthorizationPolicy } from 'gatehouse-auth';
import { type GatehouseOptions, type PolicyName, routeGroup } from 'gatehouse-auth/fastify';
import type { Invoice } from './invoice.ts';

export function routeNamingAMisspeltPolicy(app: FastifyInstance): void {
  // @ts-expect-error 'Bookeeping' is not a declared policy name.
  app.get('/typo', { config: { authorization: { authorize: [{ policy: 'Bookeeping' }] } } }, async () => ({}));
  app.get('/spelt-right', { config: { authorization: { authorize: [{ policy: 'Bookkeeping' }] } } }, async () => ({}));
}

export const groupNamingAMisspeltPolicy = routeGroup(
  // @ts-expect-error 'Customer' is not a declared policy name ('Customers' is).
  { authorize: [{ policy: 'Customer' }] },
  async () => {},
);

export async function resourceCheckNamingAMisspeltPolicy(request: FastifyRequest, invoice: Invoice): Promise<void> {
  // @ts-expect-error 'ReadInvoices' is not a declared policy name.
  await request.authorize(invoice, 'ReadInvoices');
  await request.authorize(invoice, 'ReadInvoice');
}

export const fallbackNamingAMisspeltPolicy: GatehouseOptions = {
  // @ts-expect-error 'customers' is not a declared policy name: names are case-sensitive.
  fallbackPolicy: 'customers',
};

export function policiesMissingOne(policy: AuthorizationPolicy): Record<PolicyName, AuthorizationPolicy> {
  // @ts-expect-error every declared name needs its policy: 'Bookkeeping' is missing.
  return { Customers: policy, ReadInvoice: policy, UpdateInvoice: policy };
}
