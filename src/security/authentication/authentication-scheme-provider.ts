import type { AuthenticationHandler } from './authentication-handler.ts';
import type { AuthenticationRequest } from './authentication-request.ts';

/** Chooses, from the shape of a request, the scheme an endpoint without named schemes uses. */
export type ForwardDefaultSelector = (request: AuthenticationRequest) => string;

/** The registry of schemes, side by side, and the one place that decides the default scheme. */
export class AuthenticationSchemeProvider {
  private readonly handlers = new Map<string, AuthenticationHandler>();

  constructor(
    handlers: readonly AuthenticationHandler[],
    private readonly forwardDefaultSelector: ForwardDefaultSelector,
  ) {
    for (const handler of handlers) {
      if (this.handlers.has(handler.scheme)) throw new Error(`Authentication scheme "${handler.scheme}" is registered twice.`);
      this.handlers.set(handler.scheme, handler);
    }
  }

  get schemes(): string[] {
    return [...this.handlers.keys()];
  }

  /** A scheme by name; an unknown name is a configuration error, found at start-up. */
  get(scheme: string): AuthenticationHandler {
    const handler = this.handlers.get(scheme);
    if (!handler) throw new Error(`No authentication scheme is registered as "${scheme}".`);
    return handler;
  }

  defaultFor(request: AuthenticationRequest): AuthenticationHandler {
    return this.get(this.forwardDefaultSelector(request));
  }
}

/**
 * The contract's default: a `Bearer` Authorization header → `Bearer`; an `X-Api-Key`
 * header → `ApiKey`; otherwise `Cookies`.
 */
export const forwardByRequestShape: ForwardDefaultSelector = (request) => {
  const authorization = request.headers.authorization;
  // A repeated Authorization header goes to Bearer too, which refuses it as malformed.
  if (Array.isArray(authorization) || (typeof authorization === 'string' && /^bearer(\s|$)/i.test(authorization))) return 'Bearer';
  if (request.headers['x-api-key'] !== undefined) return 'ApiKey';
  return 'Cookies';
};
