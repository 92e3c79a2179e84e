/**
 * `gatehouse-auth/graphql`: the `@authorize` directive for an application's own schema, the
 * HTTP transport with document limits, and subscriptions over graphql-ws with their event source;
 * or the same rules on a GraphQL server the application runs (`graphqlAuthorization`).
 */
export { gatehouseGraphQL, type GatehouseGraphQLOptions } from './plugin.ts';
export { authorizeDirective, type AuthorizeRule } from './authorize-directive.ts';
export {
  graphqlAuthorization,
  type GraphQLAuthorization,
  type GraphQLAuthorizationOptions,
  type GraphQLRefusal,
  type GraphQLServerRequest,
} from './graphql-authorization.ts';
export type { SocketExtra, SocketLimits } from './socket-options.ts';
export type { ContextBuilder, GraphQLContext, PolicyReference } from './context.ts';
export { buildExecutableSchema, type FieldResolver, type GraphQLResolvers, type SubscriptionResolver } from './executable-schema.ts';
export { createEvents, type Events, type EventsOptions, type EventStream, type EventTopics } from './events.ts';
export { forbidden, graphqlError, type GraphQLErrorCode, unauthenticated } from './errors.ts';
export { organizationFields, withinActiveOrganization, type OrganizationFields } from './organization-fields.ts';
export type { DocumentLimits } from './limits.ts';
export { graphiqlRoutes as graphiql } from './graphiql/graphiql-routes.ts';
