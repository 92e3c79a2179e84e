import { createHash } from 'node:crypto';
import { membershipPolicies } from '../membership-policies.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProviderConfig } from '../../config/config.ts';
import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { ExternalIdentity } from '../../identity/external-sign-in.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { ProviderSignIn } from '../../membership/provider-sign-in.ts';
import { assertPeerInstalled } from '../../platform/optional-peers.ts';
import { CookieProtector } from '../../security/authentication/index.ts';
import { OpenIdProvider } from '../../security/authentication/schemes/oidc/openid-provider.ts';
import { authorizationErrorCode, ExternalProviderUnavailable, ExternalResponseRejected } from '../../security/authentication/schemes/oidc/provider-errors.ts';
import { GatehouseError } from '../../security/errors.ts';
import { signInClient } from '../../identity/sign-in-client.ts';
import { externalMethod } from '../../store/ports.ts';
import { readCookie } from '../../endpoints/cookies.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import type { MembershipPaths } from '../membership-paths.ts';
import { isFormPost, seeOther, sendPage, wantsPage } from '../negotiation.ts';
import { userIdOf } from '../pipeline.ts';
import { formBodiesPlugin } from '../plugins/form-bodies.ts';
import { problem, sendProblem } from '../problem.ts';
import { type RateLimitDependencies, rateLimited } from '../rate-limit.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../../endpoints/recent-sign-in-check.ts';
import { localReturnUrl } from '../return-url.ts';
import { replyCookies } from '../reply-cookies.ts';

/** What external sign-in uses: the provider's sign-in and unlinking, the cookies, the recent-sign-in rule, and where the routes are. */
export interface ExternalLoginRouteOptions extends CookieSignInDependencies, RateLimitDependencies, RecentSignInCheckDependencies {
  readonly paths: MembershipPaths;
  readonly providerSignIn: ProviderSignIn;
  readonly externalLogins: Pick<ExternalLogins, 'unlink'>;
  readonly users: Pick<UserManager, 'findById'>;
}

/** The round trip to the provider and back must happen within ten minutes. */
const CORRELATION_MS = 10 * 60 * 1000;

/** What the correlation cookie carries to the callback; sealed, never seen by the provider. */
interface Correlation {
  readonly provider: string;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly returnUrl: string | null;
  /** Set when a signed-in user links this provider from the profile. */
  readonly linkUserId: number | null;
  readonly expiresAt: number;
}

/**
 * External sign-in with OpenID Connect (docs/reference/http.md): authorization code flow with PKCE (S256),
 * `state` and `nonce` bound to a short-lived encrypted correlation cookie; the callback validates
 * them and the ID token (openid-client); ProviderSignIn then signs the user in (links, creates or
 * refuses by the linking rule) and this route sets the auth cookie. Every failure answers a clear
 * page or problem+json, writes one `external.refused` (through ProviderSignIn), and creates no session.
 */
export async function externalLoginRoutes(app: FastifyInstance, options: ExternalLoginRouteOptions): Promise<void> {
  const { config, clock, paths, providerSignIn } = options;
  // The profile page's "Link <provider>" buttons post a form (with its antiforgery token) here.
  await app.register(formBodiesPlugin);
  const providers = new Map(config.oidcProviders.map((provider) => [provider.name, provider]));
  // openid-client (an optional peer) loads with the first discovery; a missing one fails the start.
  if (providers.size > 0) assertPeerInstalled('openid-client', 'External sign-in (an OpenID Connect provider is configured)');
  const clients = new Map(config.oidcProviders.map((provider) => [provider.name, openIdProvider(provider, () => clock.now())]));
  const limited = rateLimited(options);
  const correlation = new CookieProtector(options.keyRing.secrets.oidcCorrelation, 'gh.oidc');
  const cookieName = config.production ? '__Host-gh.oidc' : 'gh.oidc';
  const cookies = new CookieSignIn(options);
  const recent = new RecentSignInCheck(options, cookies);

  // Registered with the provider: PUBLIC_URL + the callback route below, under the prefix.
  const redirectUri = (provider: OidcProviderConfig) => paths.externalRedirectUri(config.publicUrl, provider.name);

  /**
   * Failures of the flow: one `external.refused` event (its `reason` a fixed code, never the
   * provider's text), no session, and a page or problem+json saying what to do.
   */
  const refuse = async (request: FastifyRequest, reply: FastifyReply, provider: string, reason: string, status: 400 | 403 | 502, message: string) => {
    await providerSignIn.refuse(provider, reason, request.ip);
    return refused(reply, request, reason, status, message);
  };
  /** The answer to a failure the use case has recorded already. */
  const refused = (reply: FastifyReply, request: FastifyRequest, reason: string, status: 400 | 403 | 502, message: string) => {
    clearCorrelation(reply);
    reply.header('cache-control', 'no-store');
    if (wantsPage(request)) return sendPage(reply, reply.server.pages.render('externalLoginRefused', { message }), status);
    const code = status === 502 ? 'GH_EXTERNAL_PROVIDER_UNAVAILABLE' : status === 403 ? 'GH_FORBIDDEN' : 'GH_VALIDATION_FAILED';
    return sendProblem(reply, problem(code, message, { reason }));
  };
  const unavailable = (request: FastifyRequest, reply: FastifyReply, provider: string) =>
    refuse(request, reply, provider, 'provider-unavailable', 502, `${provider} cannot be reached right now. Try again later, or sign in with your password.`);
  const clearCorrelation = (reply: FastifyReply) =>
    reply.header('set-cookie', `${cookieName}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${config.production ? '; Secure' : ''}`);

  /** Starts the flow: a fresh verifier, state and nonce, sealed into the correlation cookie; 302 to the provider. */
  const start = async (request: FastifyRequest, reply: FastifyReply, provider: OidcProviderConfig, returnUrl: string | null, linkUserId: number | null) => {
    let authorization: Awaited<ReturnType<OpenIdProvider['authorizationRequest']>>;
    try {
      authorization = await clients.get(provider.name)!.authorizationRequest(redirectUri(provider));
    } catch (error) {
      request.log.warn({ err: errorSummary(error), provider: provider.name }, 'external sign-in could not start');
      return unavailable(request, reply, provider.name);
    }
    const value: Correlation = {
      provider: provider.name,
      state: authorization.state,
      nonce: authorization.nonce,
      verifier: authorization.verifier,
      returnUrl,
      linkUserId,
      expiresAt: clock.now() + CORRELATION_MS,
    };
    reply.header(
      'set-cookie',
      `${cookieName}=${correlation.protect(JSON.stringify(value))}; Path=/; Max-Age=${CORRELATION_MS / 1000}; HttpOnly; SameSite=Lax${config.production ? '; Secure' : ''}`,
    );
    return reply.code(302).header('cache-control', 'no-store').header('location', authorization.url.href).send();
  };

  const providerOf = (name: string): OidcProviderConfig => {
    const provider = providers.get(name);
    if (provider === undefined) throw GatehouseError.notFound('There is no such sign-in provider.');
    return provider;
  };

  app.get<{ Params: { provider: string }; Querystring: { returnUrl?: string; ReturnUrl?: string } }>(
    '/account/external-login/:provider',
    { config: { authorization: { allowAnonymous: true } }, ...limited },
    async (request, reply) => start(request, reply, providerOf(request.params.provider), localReturnUrl(request.query.returnUrl ?? request.query.ReturnUrl), null),
  );

  app.post<{ Params: { provider: string } }>(
    '/account/logins/:provider',
    { config: { authorization: { authorize: [{ policy: membershipPolicies.user }] } } },
    async (request, reply) => {
      const provider = providerOf(request.params.provider);
      // A linked provider signs in on its own: linking one needs a recent sign-in (decision 0065).
      // The profile's button is a form: its browser is sent to sign in again, and back.
      if (isFormPost(request) && !(await recent.isRecent(request))) return seeOther(reply.header('cache-control', 'no-store'), paths.loginFor(paths.profile));
      await recent.require(request);
      return start(request, reply, provider, paths.profile, userIdOf(request));
    },
  );

  app.delete<{ Params: { provider: string } }>(
    '/account/logins/:provider',
    { config: { authorization: { authorize: [{ policy: membershipPolicies.user }] }, successStatus: 204 } },
    async (request, reply) => {
      const { provider } = request.params;
      const user = await options.users.findById(userIdOf(request));
      // The sessions opened through the provider end with it: the asking one too, when it is one.
      const unlinked = user === null ? { outcome: 'not-linked' as const } : await options.externalLogins.unlink(user, provider, { ip: request.ip, session: cookies.presented(request) });
      if (unlinked.outcome === 'not-linked') throw GatehouseError.notFound('This provider is not linked.');
      // The last way to sign in stays: without a password, one login must remain.
      if (unlinked.outcome !== 'unlinked') throw new GatehouseError('GH_CONFLICT', 'This is your only way to sign in: set a password or link another provider first.');
      const signedOut = unlinked.askingEnded;
      if (signedOut) cookies.forgetSession(replyCookies(reply));
      reply.header('cache-control', 'no-store');
      if (isFormPost(request)) return seeOther(reply, signedOut ? paths.login : paths.profile);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { provider: string }; Querystring: Record<string, string | string[] | undefined> }>(
    '/signin-:provider',
    { config: { authorization: { allowAnonymous: true } }, ...limited },
    async (request, reply) => {
      // Every answer here may set or clear cookies that sign someone in: none is kept by a cache.
      reply.header('cache-control', 'no-store');
      const provider = providerOf(request.params.provider);
      const sealed = readCookie(request, cookieName);
      const opened = sealed === undefined ? null : parseCorrelation(correlation.unprotect(sealed));
      if (opened === null || opened.provider !== provider.name || opened.expiresAt <= clock.now()) {
        return refuse(request, reply, provider.name, 'no-correlation', 400, 'This sign-in was not started here or took too long. Start again from the login page.');
      }
      // Spent before the code is exchanged (and by an error answer too): a replayed callback, on
      // any instance, costs the provider nothing. A state that does not match spends nothing.
      const spent = request.query.state === opened.state && (await providerSignIn.spendFlow(correlationId(opened), opened.expiresAt));
      if (request.query.error !== undefined) {
        const error = authorizationErrorCode(request.query.error);
        return refuse(request, reply, provider.name, `provider-error:${error}`, 400, `${provider.name} did not sign you in. Start again, or sign in with your password.`);
      }
      if (!spent) {
        return refuse(request, reply, provider.name, 'correlation-spent-or-mismatched', 400, 'This sign-in was already used or does not match. Start again from the login page.');
      }
      let identity: ExternalIdentity;
      try {
        const currentUrl = new URL(`${redirectUri(provider)}${request.url.slice(request.url.indexOf('?'))}`);
        const assertion = await clients.get(provider.name)!.assertion(currentUrl, opened);
        identity = { provider: provider.name, ...assertion };
      } catch (error) {
        request.log.warn({ err: errorSummary(error), provider: provider.name }, 'external sign-in failed');
        if (error instanceof ExternalProviderUnavailable) return unavailable(request, reply, provider.name);
        const reason = error instanceof ExternalResponseRejected ? error.reason : 'invalid-response';
        return refuse(request, reply, provider.name, reason, 400, `The answer from ${provider.name} could not be verified. Start again from the login page.`);
      }
      clearCorrelation(reply);

      if (opened.linkUserId !== null) {
        // Linking comes back to the browser that asked, still signed in as the same user.
        const linked = await providerSignIn.linkToAccount(opened.linkUserId, identity, { ip: request.ip, session: cookies.presented(request) });
        if (linked === 'link-without-session') return refused(reply, request, linked, 403, 'Sign in again, then link the provider from your profile.');
        if (linked === 'link-taken') return refused(reply, request, linked, 403, `This ${provider.name} account is linked to another user already.`);
        return seeOther(reply.header('cache-control', 'no-store'), paths.profile);
      }

      const outcome = await providerSignIn.signIn(identity, {
        ip: request.ip,
        client: signInClient(request.ip, request.headers['user-agent']),
        rememberedClient: cookies.rememberedClient(request),
        session: cookies.presented(request),
      });
      if (outcome.kind === 'refused') {
        if (outcome.reason === 'locked-out') return refused(reply, request, outcome.reason, 403, 'This account is locked for now.');
        return refused(reply, request, outcome.reason, 403, EMAIL_TAKEN);
      }
      if (outcome.kind === 'two-factor') {
        cookies.startTwoFactor(replyCookies(reply), outcome.user, false, { method: externalMethod(provider.name), link: outcome.link });
        return reply.code(302).header('cache-control', 'no-store').header('location', paths.withReturnUrl(paths.twoFactorLogin, opened.returnUrl)).send();
      }
      cookies.setSession(request, replyCookies(reply), outcome.session);
      return reply.code(302).header('cache-control', 'no-store').header('location', opened.returnUrl ?? paths.profile).send();
    },
  );
}

const EMAIL_TAKEN = 'There is an account with this e-mail address already. Sign in with your password, then link this provider from your profile.';

function openIdProvider(provider: OidcProviderConfig, now: () => number): OpenIdProvider {
  const { name, issuer, clientId, clientSecret, timeoutMs } = provider;
  return new OpenIdProvider({ name, issuer, clientId, clientSecret, timeoutMs, now });
}

/** The flow's server-side id: a hash of its state, so the store never holds a live state. */
function correlationId(opened: Correlation): string {
  return createHash('sha256').update(`${opened.provider}\0${opened.state}`).digest('hex');
}

/** What the log keeps of a failure: its kind and message, never a token or the provider's body. */
function errorSummary(error: unknown): { name: string; message: string; cause?: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
  return { name: error.name, message: error.message, ...(cause === undefined ? {} : { cause }) };
}

function parseCorrelation(plain: string | null): Correlation | null {
  if (plain === null) return null;
  try {
    const value = JSON.parse(plain) as Correlation;
    return typeof value.state === 'string' && typeof value.nonce === 'string' && typeof value.verifier === 'string' ? value : null;
  } catch {
    return null;
  }
}
