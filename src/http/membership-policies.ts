/** The policies of Gatehouse's own routes live beside the other policies, for every host: re-exported for the Fastify routes. */
export { membershipHandlers, membershipPolicies } from '../policies/membership-policies.ts';
