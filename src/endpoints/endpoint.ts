import type { Messages } from '../i18n/messages.ts';
import type { TSchema } from '@sinclair/typebox';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { FieldErrors } from '../security/errors.ts';
import type { ResourcePolicy } from './resource-checks.ts';

/** Where an endpoint reports what went wrong beside its answer (a mail that could not be sent); never a secret. */
export interface EndpointLog {
  error(details: { readonly err: unknown }, message: string): void;
  /** A failure the endpoint answered itself (a provider out of reach), with what helps to tell why. */
  warn(details: { readonly err: unknown; readonly [detail: string]: unknown }, message: string): void;
}

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
  readonly user: ClaimsPrincipal;
  /**
   * The body, parsed and valid against the endpoint's `body` schema; undefined when none came. For
   * an endpoint's `formErrors`, the body as it came (it may be what failed validation).
   */
  readonly body: Body;
  /** A form post (url-encoded or multipart): its answer is a page or a redirect, not JSON. */
  readonly form: boolean;
  /**
   * A resource check (ASP.NET's `IAuthorizationService.AuthorizeAsync(User, resource, policy)`):
   * resolves when the caller may act on `resource`; otherwise throws an `AuthorizationRefusal`
   * that every host answers as a route's refusal (403, or the challenge for an anonymous caller).
   */
  authorize(resource: unknown, policy: ResourcePolicy): Promise<void>;
  /** The antiforgery request token for a page's forms; the host sets the antiforgery cookie when the browser has none. */
  antiforgeryToken(): string;
  /**
   * The texts of the request's language (the application's fixed one, else `Accept-Language`,
   * else the default): for the words an endpoint hands a page, such as a refusal's errors.
   */
  messages(): Messages;
  /** The language the request states (`Catalogues.stated`): a user's remembered at sign-in for their mails; undefined when it states none. */
  statedLanguage(): string | undefined;
  readonly log: EndpointLog;
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
  /**
   * Sent as JSON; text (JSON serialized already, such as the key ring's JWKS, or a page) and bytes
   * (a script) go as they are, typed by `content-type`. None for an empty answer.
   */
  readonly body?: unknown;
}

/** What a limit may read of a request besides its body: who is calling, and the cookies that name a user (the two-factor cookie). */
export type LimitedRequest = Pick<EndpointRequest, 'headers' | 'ip' | 'user'>;

/** The limits of the sign-in routes (docs/reference/configuration.md) an endpoint counts against. */
export interface EndpointRateLimits<Body = unknown> {
  /**
   * The account the request names, read from the valid body, or from the request for a user it
   * knows already (the signed-in caller, the user of a pending second step): counted per account
   * and client.
   */
  readonly account?: (body: Body, request: LimitedRequest) => string | undefined;
}

/**
 * One of Gatehouse's endpoints, described for any host: where it is, what protects it, what body
 * it takes and what it does. Hosts route to it, run its protection and its limits, parse and
 * validate its body, and write its response; its handler only translates a request for a use case
 * and the use case's result into a response.
 */
export interface Endpoint<Body = unknown> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path, under the mount point: literal segments and `:name` parameters, a parameter taking the rest of its segment (`/signin-:provider`). */
  readonly path: string;
  readonly authorization: AuthorizationMetadata<PolicyName>;
  /**
   * The groups it lies in, nearest first (ASP.NET's `MapGroup(…).RequireAuthorization(…)`): their
   * rules combine with its own on every host, as a Fastify route group's do (`inGroup`).
   */
  readonly groups?: readonly AuthorizationMetadata<PolicyName>[];
  /** The path parameters' schema (TypeBox), validated as the body is (400 naming the parameter). */
  readonly params?: TSchema;
  /** The query's schema (TypeBox), validated as the body is. */
  readonly query?: TSchema;
  /** The JSON body's schema (TypeBox); the host validates it as Fastify does. None: no body is read. */
  readonly body?: TSchema;
  /**
   * The body taken when none came (no content, or JSON `null`), validated and handed over as if
   * sent: `{}` for an endpoint whose fields are all optional, so `fetch(url, { method: 'POST' })`
   * is answered as `{}` is. None: no body is validated as `null`.
   */
  readonly absentBody?: Readonly<Record<string, unknown>>;
  /**
   * Form posts (url-encoded, and multipart with text fields only) are read too, beside JSON, each
   * checked for its antiforgery token before validation (400 naming the field when it is missing
   * or wrong). Without it a form body is 415.
   */
  readonly forms?: boolean;
  /**
   * For a form post the endpoint refuses, whether its body failed validation or the handler threw
   * a caller's error (a `GatehouseError` below 500): the page again with the errors by field, at
   * the refusal's status. JSON callers get problem+json either way.
   */
  readonly formErrors?: (request: EndpointRequest<Partial<Body> | undefined>, errors: FieldErrors) => Promise<EndpointResponse> | EndpointResponse;
  /** The status of its success when it is not 200 (for the API's description). */
  readonly successStatus?: 201 | 202 | 204;
  /**
   * Its answer is the same bytes for everyone, named by their content (a stylesheet or script
   * under a hash): it keeps its own `Cache-Control` even when the request carries a cookie or the
   * path lies under `/account/`, where every other answer is `no-store`.
   */
  readonly publicAsset?: boolean;
  /** The per-client limit and line of sign-ins, and the per-account limit when it names an account. */
  readonly rateLimits?: EndpointRateLimits<Body>;
  readonly handle: (request: EndpointRequest<Body>) => Promise<EndpointResponse>;
}

/** `endpoints` inside a group whose protection combines with theirs (the admin API under `AdminOnly`). */
export function inGroup(group: AuthorizationMetadata<PolicyName>, endpoints: readonly Endpoint[]): Endpoint[] {
  return endpoints.map((endpoint) => ({ ...endpoint, groups: [...(endpoint.groups ?? []), group] }));
}

/**
 * An endpoint whose handler reads its body as `Body`, the type of its schema, listed among others:
 * hosts validate the body against the schema before the handler and the limits read it.
 */
export function defineEndpoint<Body>(endpoint: Endpoint<Body>): Endpoint {
  return endpoint as unknown as Endpoint;
}
