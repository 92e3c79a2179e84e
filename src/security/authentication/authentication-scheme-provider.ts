import type { AuthenticationHandler } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';
import { credentialPresence, type CredentialSources } from './credential-sources.ts';
import { API_KEY_CREDENTIALS, API_KEY_SCHEME } from './schemes/api-key/handler.ts';
import { BEARER_CREDENTIALS, BEARER_SCHEME } from './schemes/bearer/handler.ts';
import { COOKIES_SCHEME } from './schemes/cookies/handler.ts';

/**
 * Chooses, from a request (its headers, cookies, method, target and query), the scheme an
 * endpoint without named schemes uses: ASP.NET's `ForwardDefaultSelector`. It runs for every such
 * request and every socket, so it decides from what is there, at once. An application's selector
 * may answer undefined (or null) for a request it has no opinion on: the default scheme then
 * decides as if there were no selector.
 */
export type ForwardDefaultSelector = (request: AuthenticationRequest) => string | null | undefined;

/** The registry of schemes, side by side, and the one place that decides the default scheme. */
export class AuthenticationSchemeProvider {
  private readonly byName = new Map<string, AuthenticationHandler>();

  constructor(
    handlers: readonly AuthenticationHandler[],
    private readonly forwardDefaultSelector: ForwardDefaultSelector,
  ) {
    for (const handler of handlers) {
      if (this.byName.has(handler.scheme)) throw new Error(`Authentication scheme "${handler.scheme}" is registered twice.`);
      this.byName.set(handler.scheme, handler);
    }
  }

  get schemes(): string[] {
    return [...this.byName.keys()];
  }

  /** Every registered scheme, in the order registered. */
  get handlers(): AuthenticationHandler[] {
    return [...this.byName.values()];
  }

  /** A scheme by name; an unknown name is a configuration error, found at start-up. */
  get(scheme: string): AuthenticationHandler {
    const handler = this.byName.get(scheme);
    if (!handler) throw new Error(`No authentication scheme is registered as "${scheme}".`);
    return handler;
  }

  /** The scheme the selector chooses for `request`; a selector that chooses none is a configuration error. */
  defaultFor(request: AuthenticationRequest): AuthenticationHandler {
    const scheme = this.forwardDefaultSelector(request);
    if (scheme === undefined || scheme === null) throw new Error('The default scheme selector chose no authentication scheme.');
    return this.get(scheme);
  }
}

/** A scheme the choice by request shape may make, with where its credential travels. */
export interface ShapeCandidate {
  readonly scheme: string;
  readonly credentials: CredentialSources;
}

/**
 * The choice by request shape: the first of `candidates` whose credential the request carries
 * (`credentialPresence`), else `otherwise`.
 */
export function requestShapeSelector(candidates: readonly ShapeCandidate[], otherwise: string): (request: AuthenticationRequest) => string {
  const shapes = candidates.map(({ scheme, credentials }) => ({ scheme, present: credentialPresence(credentials) }));
  return (request) => {
    for (let i = 0; i < shapes.length; i++) if (shapes[i]!.present(request)) return shapes[i]!.scheme;
    return otherwise;
  };
}

/**
 * The contract's default: a `Bearer` Authorization header (or a repeated one, which Bearer then
 * refuses as malformed) → `Bearer`; an `X-Api-Key` header → `ApiKey`; otherwise `Cookies`. The
 * shapes are the built-in schemes' declared credentials.
 */
export const forwardByRequestShape: ForwardDefaultSelector = requestShapeSelector(
  [
    { scheme: BEARER_SCHEME, credentials: BEARER_CREDENTIALS },
    { scheme: API_KEY_SCHEME, credentials: API_KEY_CREDENTIALS },
  ],
  COOKIES_SCHEME,
);
