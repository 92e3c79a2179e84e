/**
 * The names of an application's policies, declared by the application so that a misspelt name
 * is a compile error where it is used (a route's `authorize`, a group, `request.authorize`, a
 * resolver's `context.authorize`), not only a start-up error. Declare them once, by module
 * augmentation of the core entry point:
 *
 *   declare module 'gatehouse-auth' {
 *     interface GatehousePolicies { Invoices: true; AdminOnly: true }
 *   }
 *
 * `gatehouse-auth/fastify` exports this same interface, so an augmentation of that module
 * (`declare module 'gatehouse-auth/fastify'`) declares the same names.
 *
 * Until an application declares any, every string is accepted (and checked at start-up).
 */
// biome-ignore lint: an interface an application augments starts out empty.
export interface GatehousePolicies {}

/** A declared policy name; any string while none is declared. */
export type PolicyName = [keyof GatehousePolicies] extends [never] ? string : Extract<keyof GatehousePolicies, string>;
