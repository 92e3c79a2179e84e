import type { Config } from '../../config/config.ts';
import type { ExternalIdentity } from '../../identity/external-sign-in.ts';
import { signInClient } from '../../identity/sign-in-client.ts';
import type { ProviderSignIn } from '../../membership/provider-sign-in.ts';
import { authorizationErrorCode, ExternalProviderUnavailable, ExternalResponseRejected } from '../../security/authentication/schemes/oidc/provider-errors.ts';
import { externalMethod } from '../../store/ports.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest, type EndpointResponse } from '../endpoint.ts';
import { NO_STORE } from '../no-store.ts';
import { found, seeOther } from '../page-response.ts';
import { type Correlation, type CorrelationCookie, correlationId } from './correlation-cookie.ts';
import type { ExternalLoginPaths } from './external-login-paths.ts';
import { type ConfiguredProvider, errorSummary, type Providers } from './providers.ts';
import type { RefusedFlow } from './refused-flow.ts';

/** What the callback reads and calls. */
export interface CallbackDependencies {
  readonly config: Pick<Config, 'publicUrl'>;
  readonly paths: ExternalLoginPaths;
  readonly providerSignIn: Pick<ProviderSignIn, 'spendFlow' | 'signIn' | 'linkToAccount'>;
  readonly providers: Providers;
  readonly correlation: CorrelationCookie;
  readonly refusals: RefusedFlow;
  readonly cookies: CookieSignIn;
}

/**
 * `GET /signin-<provider>`: where the provider sends the browser back. The correlation cookie
 * must match the provider and the `state`, and is spent before the code is exchanged; the ID
 * token is validated (openid-client); then ProviderSignIn links, signs in (or starts the second
 * step) or refuses. Every failure answers a page or problem+json and opens no session.
 */
export function callbackEndpoint(dependencies: CallbackDependencies): Endpoint {
  const { config, paths, providerSignIn, providers, correlation, refusals } = dependencies;

  /** The provider's assertion of who signed in, validated; or the answer refusing the callback. */
  const identityFrom = async (request: EndpointRequest, provider: ConfiguredProvider, opened: Correlation): Promise<ExternalIdentity | EndpointResponse> => {
    const { name } = provider.config;
    try {
      const redirectUri = paths.externalRedirectUri(config.publicUrl, name);
      const currentUrl = new URL(`${redirectUri}${request.url.slice(request.url.indexOf('?'))}`);
      return { provider: name, ...(await provider.client.assertion(currentUrl, opened)) };
    } catch (error) {
      request.log.warn({ err: errorSummary(error), provider: name }, 'external sign-in failed');
      if (error instanceof ExternalProviderUnavailable) return refusals.unavailable(request, name);
      const reason = error instanceof ExternalResponseRejected ? error.reason : 'invalid-response';
      return refusals.refuse(request, name, reason, 400, (m) => m.problemExternalNotVerified({ provider: name }));
    }
  };

  return defineEndpoint({
    method: 'GET',
    path: '/signin-:provider',
    authorization: { allowAnonymous: true },
    rateLimits: {},
    async handle(request) {
      const provider = providers.named(request.params.provider!);
      const { name } = provider.config;
      const opened = correlation.open(request, name);
      if (opened === null) {
        return refusals.refuse(request, name, 'no-correlation', 400, (m) => m.problemExternalNotStarted);
      }
      // Spent before the code is exchanged (and by an error answer too): a replayed callback, on
      // any instance, costs the provider nothing. A state that does not match spends nothing.
      const spent = request.query.state === opened.state && (await providerSignIn.spendFlow(correlationId(opened), opened.expiresAt));
      if (request.query.error !== undefined) {
        const error = authorizationErrorCode(request.query.error);
        return refusals.refuse(request, name, `provider-error:${error}`, 400, (m) => m.problemExternalDeclined({ provider: name }));
      }
      if (!spent) {
        return refusals.refuse(request, name, 'correlation-spent-or-mismatched', 400, (m) => m.problemExternalSpent);
      }
      const identity = await identityFrom(request, provider, opened);
      if ('status' in identity) return identity;
      const cookies = new CookieList();
      correlation.clear(cookies);
      return opened.linkUserId === null ? signIn(request, identity, opened, cookies) : link(request, opened.linkUserId, identity, cookies);
    },
  });

  /** Linking comes back to the browser that asked, still signed in as the same user. */
  async function link(request: EndpointRequest, userId: number, identity: ExternalIdentity, cookies: CookieList): Promise<EndpointResponse> {
    const linked = await providerSignIn.linkToAccount(userId, identity, { ip: request.ip, session: dependencies.cookies.presented(request) });
    if (linked === 'link-without-session') return refusals.refused(request, linked, 403, (m) => m.problemExternalSignInAgain);
    if (linked === 'link-taken') return refusals.refused(request, linked, 403, (m) => m.problemExternalLinkTaken({ provider: identity.provider }));
    return seeOther(paths.profile, { headers: NO_STORE, cookies: cookies.cookies });
  }

  /** Signs the user in (or starts the second step), or refuses by the linking rule or a lockout. */
  async function signIn(request: EndpointRequest, identity: ExternalIdentity, opened: Correlation, cookies: CookieList): Promise<EndpointResponse> {
    const signInCookies = dependencies.cookies;
    const outcome = await providerSignIn.signIn(identity, {
      ip: request.ip,
      client: signInClient(request.ip, request.headers['user-agent']),
      rememberedClient: signInCookies.rememberedClient(request),
      session: signInCookies.presented(request),
      language: request.statedLanguage(),
    });
    if (outcome.kind === 'refused') {
      if (outcome.reason === 'locked-out') return refusals.refused(request, outcome.reason, 403, (m) => m.problemExternalLockedOut);
      return refusals.refused(request, outcome.reason, 403, (m) => m.problemExternalEmailTaken);
    }
    if (outcome.kind === 'two-factor') {
      signInCookies.startTwoFactor(cookies, outcome.user, false, { method: externalMethod(identity.provider), link: outcome.link });
      return found(paths.withReturnUrl(paths.twoFactorLogin, opened.returnUrl), { headers: NO_STORE, cookies: cookies.cookies });
    }
    signInCookies.setSession(request, cookies, outcome.session);
    return found(opened.returnUrl ?? paths.profile, { headers: NO_STORE, cookies: cookies.cookies });
  }
}
