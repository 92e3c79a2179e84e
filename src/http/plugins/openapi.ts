import { createRequire } from 'node:module';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/** Where the document is served unless the application says otherwise. */
export const OPENAPI_DEFAULT_PATH = '/openapi.json';

export interface OpenApiOptions {
  /**
   * The path the JSON document is served at, to anyone.
   * @default '/openapi.json'
   */
  readonly path?: string;
  /**
   * The document's `info`, over the default.
   * @default { title: 'gatehouse-auth', version: <this package's version> }
   */
  readonly info?: { readonly title?: string; readonly version?: string; readonly description?: string };
}

/** The names the components give the built-in schemes, by scheme. */
const SECURITY_SCHEMES: Readonly<Record<string, string>> = { Bearer: 'bearer', ApiKey: 'apiKey', Cookies: 'cookie' };

const COMPONENTS = {
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from `POST /auth/token`.' },
    apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key (`gatehouse apikeys create`).' },
    cookie: { type: 'apiKey', in: 'cookie', name: 'gh.auth', description: 'The sign-in cookie (`__Host-gh.auth` in production).' },
  },
} as const;

/**
 * An OpenAPI 3.1 document of the application's HTTP routes, built from their schemas by
 * `@fastify/swagger` and served as JSON at `path`, to anyone. Register it before the routes:
 * it learns them as they are registered. It only reads the routes, so their validation, hooks
 * and 404s stay as they are.
 */
async function openApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const path = options.path ?? OPENAPI_DEFAULT_PATH;
  if (!path.startsWith('/')) throw new TypeError(`The OpenAPI document's path must start with "/", not "${path}".`);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { ...defaultInfo(), ...options.info },
      components: COMPONENTS,
    },
    transform: ({ schema, url, route }) => ({ schema: describedOperation(schema, url, route), url }),
  });
  app.get(path, { schema: { hide: true }, config: { authorization: { allowAnonymous: true } } }, async () => app.swagger());
}

export const openApiPlugin = fp(openApi, { name: 'gatehouse-openapi', fastify: '5.x' });

/**
 * What the document says of one route beyond its schemas: a tag by its first path segment, and
 * the schemes it accepts as the pipeline resolved them: none for an anonymous endpoint, any or
 * none for one that reads credentials when they come (GraphQL), all three for a policy that names
 * none (the default scheme goes by the request's shape). Routes with a wildcard (static files)
 * are left out.
 */
function describedOperation(schema: FastifySchema | undefined, url: string, route: RouteOptions): FastifySchema {
  if (url.includes('*')) return { ...schema, hide: true };
  const segment = /^\/([^/:]+?)-?(?:\/|:|$)/.exec(url)?.[1];
  const tags = schema?.tags ?? (segment === undefined ? [] : [segment]);
  const policy = route.config?.policy;
  if (policy === undefined || schema?.security !== undefined) return { ...schema, tags };
  const anyScheme = Object.values(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));
  if (policy === null) return { ...schema, tags, security: route.config?.readCredentials === true ? [{}, ...anyScheme] : [] };
  if (policy.authenticationSchemes.length === 0) return { ...schema, tags, security: anyScheme };
  const named = policy.authenticationSchemes.flatMap((scheme) => (SECURITY_SCHEMES[scheme] === undefined ? [] : [{ [SECURITY_SCHEMES[scheme]]: [] }]));
  return { ...schema, tags, security: named };
}

/** This package's name and version, read through its own exports map (in the sources and in `dist/`). */
function defaultInfo(): { title: string; version: string } {
  const manifest = createRequire(import.meta.url)('gatehouse-auth/package.json') as { name: string; version: string };
  return { title: manifest.name, version: manifest.version };
}
