import type { TSchema } from '@sinclair/typebox';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';

/** The request an endpoint reads, whatever host received it. */
export interface EndpointRequest<Body = unknown> {
  /** In upper case. */
  readonly method: string;
  /** The request target as sent: the path and the query string. */
  readonly url: string;
  /** The path's parameters, by the names of the endpoint's pattern (`/users/:id` → `id`). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  /** By lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly cookies: Readonly<Record<string, string | undefined>>;
  /** The caller's address as the host trusts it (behind proxies: as `TRUST_PROXY` allows). */
  readonly ip: string;
  /** The caller, authenticated by the endpoint's authorization; anonymous on an anonymous endpoint. */
  readonly principal: ClaimsPrincipal;
  /** The body, parsed and valid against the endpoint's `body` schema; undefined when none came. */
  readonly body: Body;
}

/** The attributes of a cookie an endpoint sets. */
export interface CookieAttributes {
  readonly path?: string;
  /** In seconds; 0 clears the cookie. */
  readonly maxAge?: number;
  readonly httpOnly?: boolean;
  readonly secure?: boolean;
  readonly sameSite?: 'strict' | 'lax' | 'none';
  readonly expires?: Date;
}

/** A cookie to set; an empty value with `maxAge` 0 clears it. */
export interface ResponseCookie {
  readonly name: string;
  readonly value: string;
  readonly attributes: CookieAttributes;
}

/** What an endpoint answers; the host writes it. */
export interface EndpointResponse {
  readonly status: number;
  /** By lower-case name; `content-type` for a body that is not plain JSON (`application/json`). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly cookies?: readonly ResponseCookie[];
  /** Sent as JSON; text is JSON serialized already (the key ring's JWKS) and goes as it is. None for an empty answer. */
  readonly body?: unknown;
}

/** The limits of the sign-in routes (docs/reference/configuration.md) an endpoint counts against. */
export interface EndpointRateLimits<Body = unknown> {
  /** The account the request names, read from the valid body: counted per account and client. */
  readonly account?: (body: Body) => string | undefined;
}

/**
 * One of Gatehouse's endpoints, described for any host: where it is, what protects it, what body
 * it takes and what it does. Hosts route to it, run its protection and its limits, parse and
 * validate its body, and write its response; its handler only translates a request for a use case
 * and the use case's result into a response.
 */
export interface Endpoint<Body = unknown> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path, under the mount point: literal segments and `:name` parameters. */
  readonly path: string;
  readonly authorization: AuthorizationMetadata<PolicyName>;
  /** The JSON body's schema (TypeBox); the host validates it as Fastify does. None: no body is read. */
  readonly body?: TSchema;
  /** The status of its success when it is not 200 (for the API's description). */
  readonly successStatus?: 201 | 202 | 204;
  /** The per-client limit and line of sign-ins, and the per-account limit when it names an account. */
  readonly rateLimits?: EndpointRateLimits<Body>;
  readonly handle: (request: EndpointRequest<Body>) => Promise<EndpointResponse>;
}

/**
 * An endpoint whose handler reads its body as `Body`, the type of its schema, listed among others:
 * hosts validate the body against the schema before the handler and the limits read it.
 */
export function defineEndpoint<Body>(endpoint: Endpoint<Body>): Endpoint {
  return endpoint as unknown as Endpoint;
}
