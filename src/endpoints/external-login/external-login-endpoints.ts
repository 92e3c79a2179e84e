import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { ProviderSignIn } from '../../membership/provider-sign-in.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import { GatehouseError } from '../../security/errors.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { NO_STORE } from '../no-store.ts';
import { seeOther } from '../page-response.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../recent-sign-in-check.ts';
import { localReturnUrl } from '../return-url.ts';
import { signedInUserId } from '../signed-in-user.ts';
import { callbackEndpoint } from './callback-endpoint.ts';
import { CorrelationCookie } from './correlation-cookie.ts';
import type { ExternalLoginPaths } from './external-login-paths.ts';
import { startFlow } from './flow-start.ts';
import { type ConfiguredProvider, Providers } from './providers.ts';
import { RefusedFlow } from './refused-flow.ts';

/** What external sign-in uses: the provider's sign-in and unlinking, the cookies, the recent-sign-in rule, the pages, and where the routes are. */
export interface ExternalLoginEndpointOptions extends CookieSignInDependencies, RecentSignInCheckDependencies {
  readonly paths: ExternalLoginPaths;
  readonly providerSignIn: Pick<ProviderSignIn, 'refuse' | 'spendFlow' | 'signIn' | 'linkToAccount'>;
  readonly externalLogins: Pick<ExternalLogins, 'unlink'>;
  readonly users: Pick<UserManager, 'findById'>;
  readonly pages: Pick<PageRendering, 'render' | 'language' | 'headersFor'>;
}

/**
 * External sign-in with OpenID Connect (docs/reference/http.md): authorization code flow with PKCE
 * (S256), `state` and `nonce` bound to a short-lived sealed correlation cookie; the callback
 * validates them and the ID token (openid-client); ProviderSignIn then signs the user in (links,
 * creates or refuses by the linking rule) and the callback sets the auth cookie. Every failure
 * answers a clear page or problem+json, writes one `external.refused` (through ProviderSignIn),
 * and creates no session.
 *
 *   GET    /account/external-login/:provider   starts a sign-in (302 to the provider)
 *   POST   /account/logins/:provider           links the provider to the signed-in user (recent sign-in)
 *   DELETE /account/logins/:provider           unlinks it, keeping the last way in
 *   GET    /signin-:provider                   the provider's redirect back
 */
export function externalLoginEndpoints(options: ExternalLoginEndpointOptions): readonly Endpoint[] {
  const { config, clock, paths, pages } = options;
  const providers = new Providers(config.oidcProviders, clock);
  const correlation = new CorrelationCookie({ secret: options.keyRing.secrets.oidcCorrelation, production: config.production, clock });
  const refusals = new RefusedFlow(options.providerSignIn, correlation, pages);
  const cookies = new CookieSignIn(options);
  const recent = new RecentSignInCheck(options, cookies);
  // Registered with the provider: PUBLIC_URL + the callback's path, under the prefix.
  const start = (request: EndpointRequest, provider: ConfiguredProvider, returnUrl: string | null, linkUserId: number | null) =>
    startFlow(request, provider, paths.externalRedirectUri(config.publicUrl, provider.config.name), { returnUrl, linkUserId }, { correlation, refusals });

  const signIn = defineEndpoint({
    method: 'GET',
    path: '/account/external-login/:provider',
    authorization: { allowAnonymous: true },
    rateLimits: {},
    handle: async (request) => start(request, providers.named(request.params.provider!), localReturnUrl(request.query.returnUrl ?? request.query.ReturnUrl), null),
  });

  const link = defineEndpoint({
    method: 'POST',
    path: '/account/logins/:provider',
    authorization: SIGNED_IN_USER,
    // The profile page's "Link <provider>" buttons post a form (with its antiforgery token) here.
    forms: true,
    async handle(request) {
      const provider = providers.named(request.params.provider!);
      // A linked provider signs in on its own: linking one needs a recent sign-in (decision 0065).
      // The profile's button is a form: its browser is sent to sign in again, and back.
      if (request.form && !(await recent.isRecent(request))) return seeOther(paths.loginFor(paths.profile), { headers: NO_STORE });
      await recent.require(request);
      return start(request, provider, paths.profile, signedInUserId(request));
    },
  });

  const unlink = defineEndpoint({
    method: 'DELETE',
    path: '/account/logins/:provider',
    authorization: SIGNED_IN_USER,
    forms: true,
    successStatus: 204,
    async handle(request) {
      const provider = request.params.provider!;
      const user = await options.users.findById(signedInUserId(request));
      // The sessions opened through the provider end with it: the asking one too, when it is one.
      const unlinked = user === null ? { outcome: 'not-linked' as const } : await options.externalLogins.unlink(user, provider, { ip: request.ip, session: cookies.presented(request) });
      if (unlinked.outcome === 'not-linked') throw GatehouseError.notFound((m) => m.problemProviderNotLinked);
      // The last way to sign in stays: without a password, one login must remain.
      if (unlinked.outcome !== 'unlinked') throw new GatehouseError('GH_CONFLICT', (m) => m.problemOnlyWayInProvider);
      const signedOut = unlinked.askingEnded;
      const answer = new CookieList();
      if (signedOut) cookies.forgetSession(answer);
      if (request.form) return seeOther(signedOut ? paths.login : paths.profile, { headers: NO_STORE, cookies: answer.cookies });
      return { status: 204, headers: NO_STORE, cookies: answer.cookies };
    },
  });

  return [signIn, link, unlink, callbackEndpoint({ config, paths, providerSignIn: options.providerSignIn, providers, correlation, refusals, cookies })];
}
