// Where the membership lives is the endpoints' to know, on every host; the Fastify side imports it from here.
export { MembershipPaths, publicLink } from '../endpoints/membership-paths.ts';
