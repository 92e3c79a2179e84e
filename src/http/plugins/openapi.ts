import { createRequire } from 'node:module';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { unknownNameMessage } from '../../config/option-names.ts';

/** Where the document is served unless the application says otherwise. */
export const OPENAPI_DEFAULT_PATH = '/openapi.json';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The status a successful call of the route answers when it is not 200 (201 Created, 202
     * Accepted, 204 No Content): the OpenAPI document states it as the route's success.
     * @default 200
     */
    successStatus?: 200 | 201 | 202 | 204;
  }
}

/** An OpenAPI 3.1 Security Scheme Object (`type` `http`, `apiKey`, `oauth2`, `openIdConnect` or `mutualTLS`, and its fields). */
export type OpenApiSecurityScheme = { readonly type: string; readonly description?: string } & Readonly<Record<string, unknown>>;

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
  /**
   * How the document describes the application's own schemes, by scheme name (as
   * `components.securitySchemes`). A scheme not described here is `{ type: 'http', scheme: <its name> }`.
   */
  readonly securitySchemes?: Readonly<Record<string, OpenApiSecurityScheme>>;
}

/** What the plugin learns from Gatehouse beside the application's options. */
export interface OpenApiSchemes {
  /** The registered schemes' names, the application's among them. */
  readonly schemes: readonly string[];
  /** The schemes a policy that names none may authenticate with (the default scheme's choices). */
  readonly defaultSchemes: readonly string[];
}

/** How the components describe the built-in schemes, by scheme; a scheme named like one and replaced by the application keeps the name. */
const BUILT_IN_SCHEMES: Readonly<Record<string, readonly [string, OpenApiSecurityScheme]>> = {
  Bearer: ['bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from `POST /auth/token`.' }],
  ApiKey: ['apiKey', { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key (`gatehouse apikeys create`).' }],
  Cookies: ['cookie', { type: 'apiKey', in: 'cookie', name: 'gh.auth', description: 'The sign-in cookie (`__Host-gh.auth` in production).' }],
};

const STATUS_DESCRIPTIONS: Readonly<Record<number, string>> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/**
 * An OpenAPI 3.1 document of the application's HTTP routes, built from their schemas by
 * `@fastify/swagger` and served as JSON at `path`, to anyone. Register it before the routes:
 * it learns them as they are registered. It only reads the routes, so their validation, hooks
 * and 404s stay as they are.
 */
async function openApi(app: FastifyInstance, options: OpenApiOptions & OpenApiSchemes): Promise<void> {
  const path = options.path ?? OPENAPI_DEFAULT_PATH;
  if (!path.startsWith('/')) throw new TypeError(`The OpenAPI document's path must start with "/", not "${path}".`);
  const names = componentNames(options.schemes);
  for (const scheme of Object.keys(options.securitySchemes ?? {})) {
    if (!options.schemes.includes(scheme)) {
      throw new Error(unknownNameMessage(`openapi.securitySchemes: no authentication scheme is registered as "${scheme}"`, scheme, options.schemes));
    }
  }
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { ...defaultInfo(), ...options.info },
      // Checked by the application's types and by the document's validity, not by swagger's narrower ones.
      components: { securitySchemes: securitySchemes(options.schemes, options.securitySchemes ?? {}) as Record<string, never> },
    },
    transform: ({ schema, url, route }) => ({ schema: describedOperation(schema, url, route, names, options.defaultSchemes), url }),
  });
  app.get(path, { schema: { hide: true }, config: { authorization: { allowAnonymous: true } } }, async () => app.swagger());
}

export const openApiPlugin = fp(openApi, { name: 'gatehouse-openapi', fastify: '5.x' });

/**
 * What the document says of one route beyond its schemas: a tag by its first path segment, its
 * success status (`config.successStatus`) when it declares no responses, and the schemes it
 * accepts as the pipeline resolved them: none for an anonymous endpoint, any or none for one that
 * reads credentials when they come (GraphQL), the default scheme's choices for a policy that names
 * none. Routes with a wildcard (static files) are left out.
 */
function describedOperation(
  schema: FastifySchema | undefined,
  url: string,
  route: RouteOptions,
  names: ReadonlyMap<string, string>,
  defaultSchemes: readonly string[],
): FastifySchema {
  if (url.includes('*')) return { ...schema, hide: true };
  const segment = /^\/([^/:]+?)-?(?:\/|:|$)/.exec(url)?.[1];
  const tags = schema?.tags ?? (segment === undefined ? [] : [segment]);
  const described = { ...schema, tags, ...successResponse(schema, route) };
  const policy = route.config?.policy;
  if (policy === undefined || schema?.security !== undefined) return described;
  const requirements = (schemes: readonly string[]) => schemes.flatMap((scheme) => (names.has(scheme) ? [{ [names.get(scheme)!]: [] }] : []));
  if (policy === null) return { ...described, security: route.config?.readCredentials === true ? [{}, ...requirements(defaultSchemes)] : [] };
  return { ...described, security: requirements(policy.authenticationSchemes.length === 0 ? defaultSchemes : policy.authenticationSchemes) };
}

/** The route's success status as its one documented response, unless its schema declares responses. */
function successResponse(schema: FastifySchema | undefined, route: RouteOptions): { response?: Record<number, object> } {
  const status = route.config?.successStatus;
  if (schema?.response !== undefined || status === undefined || status === 200) return {};
  const description = STATUS_DESCRIPTIONS[status] ?? 'Success';
  return { response: { [status]: status === 204 ? { description, type: 'null' } : { description } } };
}

/** The component name of each scheme: the built-ins' own, else the scheme's name. */
function componentNames(schemes: readonly string[]): ReadonlyMap<string, string> {
  return new Map(schemes.map((scheme) => [scheme, BUILT_IN_SCHEMES[scheme]?.[0] ?? scheme]));
}

/** `components.securitySchemes`: each registered scheme, as the application describes it or by default. */
function securitySchemes(schemes: readonly string[], described: Readonly<Record<string, OpenApiSecurityScheme>>): Record<string, OpenApiSecurityScheme> {
  const names = componentNames(schemes);
  return Object.fromEntries(
    schemes.map((scheme) => [
      names.get(scheme)!,
      described[scheme] ?? BUILT_IN_SCHEMES[scheme]?.[1] ?? { type: 'http', scheme, description: `The application's "${scheme}" scheme.` },
    ]),
  );
}

/** This package's name and version, read through its own exports map (in the sources and in `dist/`). */
function defaultInfo(): { title: string; version: string } {
  const manifest = createRequire(import.meta.url)('gatehouse-auth/package.json') as { name: string; version: string };
  return { title: manifest.name, version: manifest.version };
}
