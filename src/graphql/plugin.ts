import type { FastifyInstance } from 'fastify';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import { createGraphQLEndpoint } from './graphql-endpoint.ts';
import { checkGraphQLOptions, type GatehouseGraphQLOptions } from './graphql-options.ts';
import { graphqlTransport } from './http-transport.ts';

export type { GatehouseGraphQLOptions } from './graphql-options.ts';

/** Fastify's own registration options. */
const REGISTRATION_OPTIONS = { prefix: true, logLevel: true, logSerializers: true } as const;

/**
 * GraphQL for an application's own schema, registered after Gatehouse's plugin: POST and GET at
 * `path` with the document limits, result cache and production rules of docs/reference/graphql.md, and
 * graphql-ws subscriptions on the same path with the live-connection rules (authentication at
 * `connection_init`, re-authentication at the credential's end and at revocations, claims changes).
 */
export async function gatehouseGraphQL<Context extends object = object, Policy extends string = PolicyName>(
  app: FastifyInstance,
  options: GatehouseGraphQLOptions<Context, Policy>,
): Promise<void> {
  checkGraphQLOptions(options, REGISTRATION_OPTIONS);
  const gatehouse = gatehouseOf(app);
  const endpoint = createGraphQLEndpoint(gatehouse, options);
  await endpoint.start();
  app.addHook('onClose', () => endpoint.close());
  await graphqlTransport(app, endpoint, { bodyLimitBytes: gatehouseServices(gatehouse).config.bodyLimitBytes });
}

/** What Gatehouse's plugin left on the instance; a clear error when it is not registered. */
function gatehouseOf(app: FastifyInstance): Gatehouse {
  if (!app.hasDecorator('gatehouse')) {
    throw new Error('gatehouseGraphQL needs Gatehouse: register the gatehouse plugin first, on this instance or a parent of it.');
  }
  // Read without the Fastify host's type augmentation, which this module (beside src/http) does not import.
  return (app as FastifyInstance & { readonly gatehouse: Gatehouse }).gatehouse;
}
