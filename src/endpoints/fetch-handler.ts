import type { IncomingMessage } from 'node:http';
/**
 * Gatehouse's endpoints as one Web-standard handler, `(Request) → Response`, for hosts that speak
 * the Fetch API (Hono, Bun, Deno, Next.js route handlers, workers) or that hand it a request they
 * parsed already. It runs, for each request, what the Fastify host's pipeline runs for the same
 * endpoint (http/request-pipeline.ts), in the same order and with the same answers:
 *
 *   phase                    refuses with
 *   routing                  404 problem+json
 *   authentication           401 for invalid credentials           endpoints/authorize-endpoint.ts
 *   authorization            401 / 403 (302 to the login page)     endpoints/refusal-response.ts
 *   cross-site               403 (callers of the auth cookie only) endpoints/cookie-session-check.ts
 *     · the auth cookie's sliding renewal: sent with the answer
 *   rate limit per client    429 (sign-in endpoints)               endpoints/sign-in-limits.ts
 *     · body reading: 413, 415, 400 (raw bodies only)             endpoints/request-body.ts
 *   antiforgery              400 (form posts)                      endpoints/antiforgery.ts
 *     · validation of the path, body, query: 400 (a form: its page) endpoints/body-validation.ts
 *   rate limit per account   429 (sign-in endpoints)
 *     · the endpoint; a resource check it fails: 401 / 403        endpoints/resource-checks.ts
 *   every answer: a browser's 403/404 as a page, the security headers
 *                                        endpoints/refusal-page.ts, endpoints/response-headers.ts
 *
 * Draining and CORS are the host's.
 */
import type { RateLimitDecision } from '../platform/rate-limit/rate-limiter.ts';
import type { AuthenticationRequest } from '../security/authentication/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import { GatehouseError } from '../security/errors.ts';
import { problem, type ProblemBody } from '../security/problem-details.ts';
import {
  anonymousCaller,
  type EndpointAuthorizationOptions,
  type EndpointAuthorizer,
  endpointAuthorization,
  type EndpointRecognizer,
} from './authorize-endpoint.ts';
import { carriesCredentials, isNoStoreEndpoint, type ResponseHeadersOptions, STRICT_TRANSPORT_SECURITY } from './response-headers.ts';
import { BUILT_IN_LANGUAGES } from '../i18n/catalogue.ts';
import { type RefusalPages, refusalForReader } from './refusal-page.ts';
import { type AntiforgeryOptions, AntiforgeryTokens, isFormContentType, isUnsafeMethod } from './antiforgery.ts';
import { type BodyValidator, partValidator } from './body-validation.ts';
import { CookieList } from './cookies.ts';
import { endpointAnswer, invalidFormAnswer } from './endpoint-answer.ts';
import { knownErrorAnswer } from './error-answers.ts';
import { AuthorizationRefusal, resourceChecks } from './resource-checks.ts';
import { clientKey } from './client-key.ts';
import { cookieSessionCheck } from './cookie-session-check.ts';
import type { Endpoint, EndpointLog, EndpointRequest, EndpointResponse } from './endpoint.ts';
import { problemResponse } from './problem-response.ts';
import { type LoginPage, refusalResponse } from './refusal-response.ts';
import { bodyOf, errorResponse, type ReceivedRequest, rawBody, receivedFrom, toResponse } from './web-exchange.ts';
import { consumeAccountLimit, consumeClientLimit, NO_TURN_REFUSAL, type RateLimitDependencies, type RateLimitRefusal, rateLimitRefusal } from './sign-in-limits.ts';

export interface FetchHandlerOptions extends EndpointAuthorizationOptions {
  /** The groups every endpoint lies in, nearest first (Gatehouse's own need an authenticated caller unless they say otherwise). */
  readonly groups?: readonly AuthorizationMetadata[];
  /** What the sign-in limits count with; needed when an endpoint has limits. */
  readonly limits?: RateLimitDependencies;
  /** The origins trusted with the auth cookie (`PUBLIC_URL`'s and `CORS_ORIGINS`): unsafe requests it authenticates from others are 403. */
  readonly trustedOrigins: readonly string[];
  /**
   * The auth cookie's sliding renewal: a persistent cookie whose session moved on is sent again
   * with the answer, with these attributes. Without it the cookie is not renewed in the browser
   * (its session still is, on the server).
   */
  readonly sessionCookies?: { readonly production: boolean; readonly clock: Pick<Clock, 'now'> };
  /** Where a browser is sent to sign in; without it a challenge is always a 401. */
  readonly loginPage?: LoginPage;
  /** The largest raw body read (`BODY_LIMIT_BYTES`). @default 1 MiB */
  readonly bodyLimitBytes?: number;
  /** The antiforgery secret and cookie; needed when an endpoint takes form posts. */
  readonly antiforgery?: AntiforgeryOptions;
  /** Where endpoints report what failed beside their answer. @default console.error */
  readonly log?: EndpointLog;
  /** Hears each error an endpoint threw that is answered here (a store out of reach is 503): the metrics count them. */
  readonly errorSeen?: (error: unknown) => void;
  /**
   * The security headers' settings (HSTS in production; the paths and headers that make an answer
   * `no-store`). @default development, the contract's credential headers, no credential paths
   */
  readonly responseHeaders?: Partial<ResponseHeadersOptions>;
  /** A browser's 403 or 404 under the membership paths (at `prefix`) is answered with the pages' error page; a problem in the reader's language. */
  readonly refusalPages?: { readonly pages: RefusalPages; readonly prefix: string };
}

/** What the host tells of one request beside the `Request`. */
export interface FetchRequestOptions {
  /** The body, parsed by the host already: read instead of the request's (still validated). */
  readonly body?: unknown;
  /** The caller's address as the host trusts it (behind proxies: as its `TRUST_PROXY` allows). */
  readonly ip?: string;
  /**
   * The Node request behind `request`, when the host has one (Express, Hono on Node): its headers
   * and body are read from it. Building them as a Web request's costs more than most requests.
   */
  readonly node?: IncomingMessage;
}

export type FetchHandler = (request: Request, options?: FetchRequestOptions) => Promise<Response>;

/** A handler of known endpoints, which tells whether a request is one of them (a host passes others on). */
export type EndpointsHandler = FetchHandler & {
  /** Whether an endpoint answers `method` on `pathname` (a path without its query). */
  readonly serves: (method: string, pathname: string) => boolean;
  /** The path pattern of the endpoint that answers `method` on `pathname` (`/account/passkeys/:id`), for the metrics' route label. */
  readonly routeOf: (method: string, pathname: string) => string | undefined;
};

/** An endpoint with what is decided once for it: its path's pattern, its authorization, its body's check. */
interface MountedEndpoint {
  readonly endpoint: Endpoint;
  readonly segments: readonly string[];
  readonly authorize: EndpointAuthorizer;
  /** A caller known at once (a remembered credential), authorized without the authorizer. */
  readonly recognize: EndpointRecognizer | null;
  /** The checks of its path, body and query, in Fastify's order. */
  readonly validators: readonly BodyValidator[];
  /** What its sign-in limits count with, when it has limits. */
  readonly limits: RateLimitDependencies | undefined;
  /** Its answers are never stored, whoever asks (it reads credentials, or lies under a credential path). */
  readonly noStore: boolean;
  /** `Endpoint.publicAsset`: never `no-store`. */
  readonly publicAsset: boolean;
}

const DEFAULT_BODY_LIMIT = 1_048_576;

/**
 * The Web-standard handler of `endpoints`: policies resolved and body schemas compiled now, an
 * unknown policy name or an endpoint with limits but no `limits` throwing here. Errors that are
 * not the caller's (a store that fails) are thrown to the host, whose error path answers them.
 */
export function fetchHandler(endpoints: readonly Endpoint[], options: FetchHandlerOptions): EndpointsHandler {
  const routes = routingTable(endpoints.map((endpoint) => mount(endpoint, options)));
  const cookieSession = cookieSessionCheck({ trustedOrigins: options.trustedOrigins, production: false, clock: { now: Date.now }, ...options.sessionCookies });
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const antiforgery = options.antiforgery === undefined ? undefined : new AntiforgeryTokens(options.antiforgery);
  const checks = resourceChecks(options);
  const log = options.log ?? CONSOLE_LOG;
  const languages = options.refusalPages?.pages.catalogues ?? BUILT_IN_LANGUAGES;

  const finish = answerFinisher(options);

  const handle: FetchHandler = async (request, requestOptions = {}) => {
    const url = new URL(request.url);
    const received = receivedFrom(request, url, requestOptions);
    const found = route(routes, request.method, url.pathname);
    const response = found === undefined ? NOT_FOUND : 'problem' in found ? problemResponse(found.problem) : await respond(found, request, received, requestOptions);
    const answered = toResponse(finish(response, received, found !== undefined && 'mounted' in found ? found.mounted : undefined));
    return request.method === 'HEAD' ? headless(answered) : answered;
  };
  return Object.assign(handle, {
    serves: (method: string, pathname: string) => route(routes, method, pathname) !== undefined,
    routeOf: (method: string, pathname: string) => {
      const found = route(routes, method, pathname);
      return found !== undefined && 'mounted' in found ? found.mounted.endpoint.path : undefined;
    },
  });

  /** The answer of a routed request, through the phases in the order above. */
  async function respond(found: RoutedEndpoint, request: Request, credentials: ReceivedRequest, requestOptions: FetchRequestOptions): Promise<EndpointResponse> {
    const { endpoint, validators, authorize, recognize, limits } = found.mounted;
    const { principal, outcome, authentication } = recognize?.(credentials) ?? (await authorize(credentials));
    if (outcome.kind !== 'success') return refusalResponse(outcome, credentials, options.loginPage);
    const verdict = authentication === undefined ? undefined : cookieSession(credentials, authentication);
    if (verdict?.kind === 'refused') return problemResponse(verdict.problem);
    // Cookies set on the way (the renewed auth cookie, the antiforgery cookie of a page's forms) go out with whatever is answered.
    const pending = new CookieList();
    if (verdict?.renewed !== undefined && options.sessionCookies !== undefined) pending.cookies.push(verdict.renewed);
    const form = isFormContentType(credentials.headers['content-type']);
    const endpointRequest = (body: unknown): EndpointRequest => ({
      ...credentials,
      params: found.params,
      user: principal,
      body,
      form,
      authorize: checks.checkFor(principal, credentials),
      antiforgeryToken: () => {
        if (antiforgery === undefined) throw new Error(`${endpoint.method} ${endpoint.path} renders forms: fetchHandler needs the antiforgery options.`);
        return antiforgery.requestToken(credentials, principal.subject, pending);
      },
      messages: () => languages.messages(languages.choose(credentials.headers['accept-language'])),
      statedLanguage: () => languages.stated(credentials.headers['accept-language']),
      log,
    });
    let leave: (() => void) | undefined;
    try {
      if (limits !== undefined) {
        const turn = await clientTurn(limits, credentials.ip);
        if ('refusal' in turn) return turn.refusal;
        leave = turn.leave;
      }
      const read = 'body' in requestOptions ? { value: requestOptions.body } : await rawBody(bodyOf(request, requestOptions), bodyLimit, endpoint.forms === true);
      if ('error' in read) return errorResponse(read.error);
      if (form && isUnsafeMethod(request.method)) {
        const refusal = antiforgeryRefusal(antiforgery, credentials, read.value, principal);
        if (refusal !== null) return errorResponse(refusal);
      }
      const body = withAbsentBody(endpoint, read);
      const values = [found.params, body.value, credentials.query];
      const errors = validators.reduce<ReturnType<BodyValidator>>((first, validate, i) => first ?? validate(values[i]), null);
      if (errors !== null) {
        const page = await invalidFormAnswer(endpoint, endpointRequest(body.value), errors);
        return withCookies(page ?? problemResponse(problem('GH_VALIDATION_FAILED', (m) => m.problemRequestNotValid, { errors })), pending);
      }
      const account = endpoint.rateLimits?.account?.(body.value, endpointRequest(body.value));
      if (account !== undefined && limits !== undefined) {
        const refusal = limitRefusal(await consumeAccountLimit(limits, credentials.ip, account));
        if (refusal !== undefined) return refusal;
      }
      return withCookies(await answer(endpoint, endpointRequest(body.value), credentials, options), pending);
    } finally {
      leave?.();
    }
  }
}

const NOT_FOUND = problemResponse(problem('GH_NOT_FOUND', (m) => m.problemNoSuchResource));

/**
 * What every answer gets last, as the Fastify host's `onSend` hooks give it: a browser's 403 or
 * 404 under the membership paths as a page, a problem in the reader's language, then the security headers, `no-store` for a request
 * that carried credentials or an endpoint that reads them.
 */
function answerFinisher(options: FetchHandlerOptions) {
  const { production = false, credentialHeaders = DEFAULT_CREDENTIAL_HEADERS } = options.responseHeaders ?? {};
  const forReader = options.refusalPages === undefined ? undefined : refusalForReader(options.refusalPages.pages, options.refusalPages.prefix);
  return (response: EndpointResponse, request: ReceivedRequest, mounted: MountedEndpoint | undefined): EndpointResponse => {
    const answer = forReader === undefined ? response : forReader(response, request);
    const noStore = mounted?.publicAsset !== true && (mounted?.noStore === true || carriesCredentials(request.headers, credentialHeaders));
    const headers = {
      ...answer.headers,
      'x-content-type-options': 'nosniff',
      ...(production ? { 'strict-transport-security': STRICT_TRANSPORT_SECURITY } : {}),
      ...(noStore ? { 'cache-control': 'no-store' } : {}),
    };
    return { ...answer, headers };
  };
}

/** The contract's credential headers, when the host names no others (docs/reference/http.md). */
const DEFAULT_CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'cookie'];

const CONSOLE_LOG: EndpointLog = {
  error: (details, message) => console.error(message, details.err),
  warn: (details, message) => console.warn(message, details),
};

/** The antiforgery check of a form post; without antiforgery options every form post is refused. */
function antiforgeryRefusal(antiforgery: AntiforgeryTokens | undefined, request: ReceivedRequest, body: unknown, user: ClaimsPrincipal): GatehouseError | null {
  if (antiforgery === undefined) return new GatehouseError('GH_UNSUPPORTED_MEDIA_TYPE', (m) => m.problemContentTypeNotAccepted);
  return antiforgery.check(request, body, user.subject);
}

/** The endpoint's `absentBody` in place of no body: a copy, since validation may fill in defaults. */
function withAbsentBody(endpoint: Endpoint, read: { readonly value: unknown }): { readonly value: unknown } {
  const { absentBody } = endpoint;
  return absentBody !== undefined && (read.value === undefined || read.value === null) ? { value: structuredClone(absentBody) } : read;
}

function withCookies(response: EndpointResponse, pending: CookieList): EndpointResponse {
  return pending.cookies.length === 0 ? response : { ...response, cookies: [...pending.cookies, ...(response.cookies ?? [])] };
}

function mount(endpoint: Endpoint, options: FetchHandlerOptions): MountedEndpoint {
  const limits = endpoint.rateLimits === undefined ? undefined : options.limits;
  if (endpoint.rateLimits !== undefined && limits === undefined) {
    throw new Error(`${endpoint.method} ${endpoint.path} has rate limits: fetchHandler needs the limits' dependencies.`);
  }
  const protection = { authorization: endpoint.authorization, groups: [...(endpoint.groups ?? []), ...(options.groups ?? [])] };
  const { method, path, params, body, query } = endpoint;
  const always = () => null;
  const { authorize, recognize } = endpointAuthorization(options, protection);
  return {
    endpoint,
    segments: endpoint.path.split('/'),
    authorize: authorize ?? anonymousCaller,
    recognize,
    noStore: isNoStoreEndpoint(path, authorize !== null, options.responseHeaders?.credentialPaths ?? []),
    publicAsset: endpoint.publicAsset === true,
    validators: [
      params === undefined ? always : partValidator(params, method, path, 'params'),
      body === undefined ? always : partValidator(body, method, path, 'body'),
      query === undefined ? always : partValidator(query, method, path, 'querystring'),
    ],
    limits,
  };
}

type RoutedEndpoint = { readonly mounted: MountedEndpoint; readonly params: Record<string, string> };
type Routed = RoutedEndpoint | { readonly problem: ProblemBody };

/**
 * The mounted endpoints by the shape of the paths they answer, so that routing tries only those
 * that could: of the method (GET's for HEAD too), the number of segments, and the first segment
 * after the root, where a literal tells endpoints apart (`auth`, `account`, `.well-known`). Each
 * list keeps the mounting order, so the first endpoint that matches is the one a scan of them all
 * would find; a request of no endpoint's shape (most requests a host passes on) costs look-ups.
 */
interface RoutingTable {
  /** By method, then number of segments. */
  readonly shapes: ReadonlyMap<string, ReadonlyMap<number, RoutingShape>>;
}

interface RoutingShape {
  /** Endpoints whose first segment has a parameter (`/signin-:provider`): the candidates of any first segment. */
  readonly anyHead: readonly MountedEndpoint[];
  /** By a literal first segment: its endpoints and those of `anyHead`, in mounting order. */
  readonly byHead: ReadonlyMap<string, readonly MountedEndpoint[]>;
}

/** The first segment after the root when it is literal, which only a request with the same one can match. */
function literalHead(candidate: MountedEndpoint): string | undefined {
  const head = candidate.segments[1];
  return head === undefined || head.includes(':') ? undefined : head;
}

function routingTable(mounted: readonly MountedEndpoint[]): RoutingTable {
  const methods = new Set<string>(mounted.map(({ endpoint }) => endpoint.method));
  if (methods.has('GET')) methods.add('HEAD');
  const shapes = new Map<string, Map<number, RoutingShape>>();
  for (const method of methods) {
    // HEAD is answered wherever GET is, as Fastify exposes it (the body is left out: `headless`).
    const ofMethod = mounted.filter(({ endpoint }) => endpoint.method === method || (method === 'HEAD' && endpoint.method === 'GET'));
    const byCount = new Map<number, RoutingShape>();
    for (const count of new Set(ofMethod.map(({ segments }) => segments.length))) {
      const sameCount = ofMethod.filter(({ segments }) => segments.length === count);
      const heads = new Set(sameCount.map(literalHead).filter((head) => head !== undefined));
      byCount.set(count, {
        anyHead: sameCount.filter((candidate) => literalHead(candidate) === undefined),
        byHead: new Map([...heads].map((head) => [head, sameCount.filter((candidate) => (literalHead(candidate) ?? head) === head)] as const)),
      });
    }
    shapes.set(method, byCount);
  }
  return { shapes };
}

/** The endpoint of the method and path, with the path's parameters; a parameter that is not valid percent-encoding is a 400. */
function route(table: RoutingTable, method: string, pathname: string): Routed | undefined {
  const segments = pathname.split('/');
  const shape = table.shapes.get(method)?.get(segments.length);
  if (shape === undefined) return undefined;
  const head = segments[1];
  const candidates = (head === undefined ? undefined : shape.byHead.get(head)) ?? shape.anyHead;
  for (const candidate of candidates) {
    const params: Record<string, string> = Object.create(null) as Record<string, string>;
    let matches = true;
    for (let i = 0; i < segments.length && matches; i++) {
      const pattern = candidate.segments[i]!;
      const segment = segments[i]!;
      // A parameter takes the rest of its segment, after any literal start (`/signin-:provider`).
      const at = pattern.indexOf(':');
      if (at >= 0 && segment.startsWith(pattern.slice(0, at))) {
        const value = decoded(segment.slice(at));
        if (value === undefined) return { problem: problem('GH_VALIDATION_FAILED', (m) => m.problemUrlNotValid, { errors: { url: [(m) => m.problemUrlBadEscape] } }) };
        params[pattern.slice(at + 1)] = value;
      } else matches = pattern === segment;
    }
    if (matches) return { mounted: candidate, params };
  }
  return undefined;
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The client's place among its sign-ins, once its budget allowed the request; or the 429 that
 * refuses it. The place is let go when the answer is built (the Fastify host: when it has gone).
 */
async function clientTurn(limits: RateLimitDependencies, ip: string): Promise<{ readonly leave: () => void } | { readonly refusal: EndpointResponse }> {
  const refused = limitRefusal(await consumeClientLimit(limits, ip));
  if (refused !== undefined) return { refusal: refused };
  const turn = limits.signInTurns.enter(clientKey(ip));
  if (turn === null) return { refusal: NO_TURN_RESPONSE };
  if (await turn.ready) return { leave: turn.leave };
  turn.leave();
  return { refusal: NO_TURN_RESPONSE };
}

function limitRefusal(decision: RateLimitDecision): EndpointResponse | undefined {
  const refusal = rateLimitRefusal(decision);
  return refusal && refusalResponseOf(refusal);
}

function refusalResponseOf({ problem: body, retryAfterSeconds }: RateLimitRefusal): EndpointResponse {
  return problemResponse(body, { 'retry-after': String(retryAfterSeconds) });
}

const NO_TURN_RESPONSE = refusalResponseOf(NO_TURN_REFUSAL);

/**
 * The endpoint's answer; a failed resource check, and the errors Gatehouse knows (a caller's error,
 * a full hashing queue, a store out of reach: error-answers.ts), as the Fastify host answers them.
 */
async function answer(
  endpoint: Endpoint,
  request: EndpointRequest,
  received: ReceivedRequest,
  { loginPage, errorSeen }: Pick<FetchHandlerOptions, 'loginPage' | 'errorSeen'>,
): Promise<EndpointResponse> {
  try {
    return await endpointAnswer(endpoint, request);
  } catch (error) {
    if (error instanceof AuthorizationRefusal) return refusalResponse(error.outcome, received, loginPage);
    const known = knownErrorAnswer(error);
    if (known === undefined) throw error;
    errorSeen?.(error);
    if (known.report !== undefined) request.log[known.report.level]({ err: known.report.err }, known.report.message);
    return known.response;
  }
}

/** The answer to a HEAD request: GET's status and headers, without its body. */
function headless(answer: Response): Response {
  return new Response(null, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}
