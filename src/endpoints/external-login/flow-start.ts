import { CookieList } from '../cookies.ts';
import type { EndpointRequest, EndpointResponse } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { found } from '../page-response.ts';
import type { CorrelationCookie } from './correlation-cookie.ts';
import { type ConfiguredProvider, errorSummary } from './providers.ts';
import type { RefusedFlow } from './refused-flow.ts';

/** Where the flow starts from: a sign-in, with where to go after it, or a signed-in user's link. */
export interface FlowPurpose {
  readonly returnUrl: string | null;
  /** The user who links the provider from the profile; null for a sign-in. */
  readonly linkUserId: number | null;
}

/**
 * Starts the flow: a fresh PKCE verifier, state and nonce from the provider's client, sealed into
 * the correlation cookie; 302 to the provider. A provider out of reach is a 502.
 */
export async function startFlow(
  request: EndpointRequest,
  provider: ConfiguredProvider,
  redirectUri: string,
  purpose: FlowPurpose,
  flow: { readonly correlation: CorrelationCookie; readonly refusals: RefusedFlow },
): Promise<EndpointResponse> {
  const { name } = provider.config;
  let authorization: Awaited<ReturnType<ConfiguredProvider['client']['authorizationRequest']>>;
  try {
    authorization = await provider.client.authorizationRequest(redirectUri);
  } catch (error) {
    request.log.warn({ err: errorSummary(error), provider: name }, 'external sign-in could not start');
    return flow.refusals.unavailable(request, name);
  }
  const cookies = new CookieList();
  const { state, nonce, verifier } = authorization;
  flow.correlation.set(cookies, { provider: name, state, nonce, verifier, ...purpose });
  return found(authorization.url.href, { headers: NO_STORE, cookies: cookies.cookies });
}
