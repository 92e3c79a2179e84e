// The policies moved beside the endpoints that use them; the Fastify routes still import them from here.
export { membershipHandlers, membershipPolicies } from '../endpoints/membership-policies.ts';
