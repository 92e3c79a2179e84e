/**
 * `gatehouse-auth/graphql`: the `@authorize` directive for an application's own schema, the
 * HTTP transport with document limits, and subscriptions over graphql-ws.
 */
export {};
