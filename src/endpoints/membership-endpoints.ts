/**
 * Gatehouse's own endpoints as one list, built from the services for whichever features are on:
 * the Fastify host registers this list under the membership's prefix (http/app.ts), and the
 * Web-standard handler serves the same list (`membershipFetchHandler`). What a feature adds is
 * decided here once, so both hosts always serve the same endpoints.
 */
import type { Membership } from '../membership/membership.ts';
import { membershipPolicies } from '../policies/membership-policies.ts';
import type { AuthorizationMetadata } from '../security/authorization/index.ts';
import type { PolicyName } from '../security/authorization/policy-names.ts';
import type { PageRendering } from '../pages/rendering.ts';
import type { PasskeyScript } from '../pages/passkeys/passkey-script.ts';
import type { Services } from '../services.ts';
import { accountEndpoints } from './account/account-endpoints.ts';
import { adminEndpoints, adminSessionEndpoints } from './admin/admin-endpoints.ts';
import { type AdminConsoleOptions, withAdminConsole } from './admin-console/admin-console-endpoints.ts';
import { NewApiKeyCookie } from './admin-console/new-api-key-cookie.ts';
import { CookieSignIn } from './cookie-sign-in.ts';
import type { EndpointAuthorizationOptions } from './authorize-endpoint.ts';
import { trustedOrigins } from './cookie-session-check.ts';
import type { Endpoint } from './endpoint.ts';
import { type EndpointsHandler, type FetchHandlerOptions, fetchHandler } from './fetch-handler.ts';
import { externalLoginEndpoints } from './external-login/external-login-endpoints.ts';
import type { MembershipPaths } from './membership-paths.ts';
import { accountPasskeyEndpoints } from './passkeys/account-passkey-endpoints.ts';
import { passkeyLoginEndpoints } from './passkeys/passkey-login-endpoints.ts';
import { pageStylesheetEndpoint } from './page-stylesheet-endpoint.ts';
import { passkeyScriptEndpoint } from './passkeys/passkey-script-endpoint.ts';
import { registrationEndpoints } from './registration/registration-endpoints.ts';
import { sessionEndpoints } from './sessions/session-endpoints.ts';
import { accountOrganizationEndpoints } from './organizations/account-organization-endpoints.ts';
import { organizationEndpoints } from './organizations/organization-endpoints.ts';
import { organizationFormEndpoints } from './organizations/organization-forms.ts';
import { OrganizationPages } from './organizations/organization-pages.ts';
import { jwksEndpoint } from './tokens/jwks-endpoint.ts';
import { refreshEndpoints } from './tokens/refresh-endpoints.ts';
import { tokenEndpoint } from './tokens/token-endpoint.ts';
import { twoFactorEndpoints } from './two-factor/two-factor-endpoints.ts';

/** The features that add endpoints (`GatehouseFeatures`, as the plugin resolved them). */
export interface MembershipFeatures {
  readonly tokens: boolean;
  readonly cookies: boolean;
  readonly admin: boolean;
  readonly sessions: boolean;
  readonly twoFactor: boolean;
  readonly externalLogins: boolean;
  readonly organizations: boolean;
}

/** What the endpoints are built from. */
export interface MembershipEndpointOptions {
  readonly services: Services;
  /**
   * The administration use cases, with the running instance's rules. The admin console has its
   * API-key and signing-key pages only with those use cases.
   */
  readonly membership: Pick<Membership, 'users' | 'auditTrail' | 'sessions' | 'organizations'> & Partial<Pick<Membership, 'apiKeys' | 'signingKeys'>>;
  readonly features: MembershipFeatures;
  /** Whether the passkey endpoints are on (features.passkeys, checked by the host). */
  readonly passkeys: boolean;
  /** The login and profile pages' script, when the pages offer passkeys. */
  readonly passkeyScript: PasskeyScript | null;
  readonly paths: MembershipPaths;
  readonly pages: PageRendering;
}

/** The endpoints, split by where they are mounted. */
export interface MembershipEndpoints {
  /** At the root whatever the prefix: the JWKS (RFC 8615's well-known paths). */
  readonly atRoot: readonly Endpoint[];
  /** Under the membership's prefix (`paths.prefix`), their paths relative to it. */
  readonly underPrefix: readonly Endpoint[];
}

/** Every endpoint of Gatehouse's for the features that are on. */
export function membershipEndpoints(options: MembershipEndpointOptions): MembershipEndpoints {
  const { services, features } = options;
  return {
    atRoot: features.tokens ? [jwksEndpoint(services.keyRing)] : [],
    underPrefix: [
      ...pageAssets(options),
      ...(features.tokens ? tokenEndpoints(options) : []),
      ...(features.admin ? adminApi(options) : []),
      ...(listsSessions(features) ? sessionList(options) : []),
      ...(features.cookies ? cookieAccount(options) : []),
      ...(signsInWithPasswords(features) ? registration(options) : []),
      ...(features.twoFactor ? twoFactor(options) : []),
      ...(features.externalLogins && features.cookies ? externalLogin(options) : []),
      ...(options.passkeys ? passkeys(options) : []),
      ...(features.organizations ? organizations(options) : []),
    ],
  };
}

/** The same endpoints at their full paths, for a host that routes them itself. */
export function mountedEndpoints({ atRoot, underPrefix }: MembershipEndpoints, prefix: string): Endpoint[] {
  return [...atRoot, ...underPrefix.map((endpoint) => ({ ...endpoint, path: `${prefix}${endpoint.path}` }))];
}

/** The pages' built-in stylesheet, whatever the features: every page links it, a refusal page included. */
function pageAssets({ pages }: MembershipEndpointOptions): Endpoint[] {
  return pages.builtInStylesheet === null ? [] : [pageStylesheetEndpoint(pages.builtInStylesheet)];
}

/** "Where you are signed in" lists what Gatehouse signs users in with: cookie sessions or its tokens. */
export function listsSessions(features: MembershipFeatures): boolean {
  return features.sessions && (features.cookies || features.tokens);
}

/** Registration, confirmation and reset (and their mail) serve a sign-in with a password: by cookie or for Gatehouse's tokens. */
export function signsInWithPasswords(features: MembershipFeatures): boolean {
  return features.cookies || features.tokens;
}

function tokenEndpoints({ services, paths }: MembershipEndpointOptions): Endpoint[] {
  const { config, signIn, refreshTokens } = services;
  // The refresh cookie's path is the token endpoints' full path, wherever they are mounted.
  return [tokenEndpoint({ config, authPath: paths.auth, signIn }), ...refreshEndpoints({ config, authPath: paths.auth, refreshTokens })];
}

function adminApi(options: MembershipEndpointOptions): Endpoint[] {
  const { membership, features } = options;
  const { users, auditTrail, sessions } = membership;
  const api = [...adminEndpoints({ users, auditTrail }), ...(listsSessions(features) ? adminSessionEndpoints({ users, sessions }) : [])];
  // The console's pages are for browsers, which sign in with the cookie.
  return features.cookies ? withAdminConsole(api, adminConsoleOptions(options)) : api;
}

function adminConsoleOptions({ services, membership, features, pages, paths }: MembershipEndpointOptions): AdminConsoleOptions {
  const { config, clock, keyRing, registration } = services;
  const links = paths.accountLinks(config.publicUrl);
  return {
    pages,
    users: membership.users,
    auditTrail: membership.auditTrail,
    sessions: listsSessions(features) ? membership.sessions : null,
    apiKeys: membership.apiKeys ?? null,
    signingKeys: membership.signingKeys ?? null,
    organizations: features.organizations ? membership.organizations : null,
    resendConfirmation: (user, actor) => registration.resendConfirmationFor(user, links, actor),
    newKeys: new NewApiKeyCookie({ production: config.production, clock, keyRing }),
  };
}

function sessionList({ services, membership, paths }: MembershipEndpointOptions): readonly Endpoint[] {
  return sessionEndpoints({
    sessions: membership.sessions,
    cookies: new CookieSignIn(services),
    cookieSessions: services.sessions,
    bearerTokens: services.bearerTokens,
    paths,
  });
}

function cookieAccount({ services, paths, pages, passkeys, features }: MembershipEndpointOptions): readonly Endpoint[] {
  return accountEndpoints({
    ...cookieSettings(services),
    pages,
    paths,
    sessions: services.sessions,
    signIn: services.signIn,
    signOut: services.signOut,
    passwordChange: services.passwordChange,
    users: services.users,
    externalLogins: services.externalLogins,
    passkeys: passkeys ? services.passkeys : null,
    userSessions: listsSessions(features) ? services.userSessions : null,
  });
}

function registration({ services, paths, pages }: MembershipEndpointOptions): readonly Endpoint[] {
  const { config } = services;
  // The mails' links lead back to these endpoints, wherever they are mounted.
  const links = paths.accountLinks(config.publicUrl);
  return registrationEndpoints({ config, pages, paths, links, registration: services.registration, passwordReset: services.passwordReset });
}

function twoFactor({ services, paths, pages }: MembershipEndpointOptions): readonly Endpoint[] {
  return twoFactorEndpoints({ ...cookieSettings(services), ...recentSignIn(services), paths, pages, signIn: services.signIn, twoFactor: services.twoFactor, users: services.users });
}

function externalLogin({ services, paths, pages }: MembershipEndpointOptions): readonly Endpoint[] {
  return externalLoginEndpoints({
    ...cookieSettings(services),
    ...recentSignIn(services),
    paths,
    pages,
    providerSignIn: services.providerSignIn,
    externalLogins: services.externalLogins,
    users: services.users,
  });
}

function passkeys({ services, passkeyScript }: MembershipEndpointOptions): Endpoint[] {
  const { passkeys: manager, signIn, users } = services;
  return [
    ...accountPasskeyEndpoints({ ...cookieSettings(services), ...recentSignIn(services), passkeys: manager, users }),
    ...(passkeyScript === null ? [] : [passkeyScriptEndpoint(passkeyScript)]),
    ...passkeyLoginEndpoints({ ...cookieSettings(services), passkeys: manager, signIn }),
  ];
}

function organizations({ services, membership, paths, pages }: MembershipEndpointOptions): Endpoint[] {
  const { config } = services;
  const invitationLink = (code: string) => paths.invitationLink(config.publicUrl, code);
  const cookies = new CookieSignIn(services);
  const organizationPages = new OrganizationPages({ pages, paths, organizations: membership.organizations, users: services.users, cookies, cookieSessions: services.sessions });
  return [
    ...organizationEndpoints({ organizations: membership.organizations, invitationLink, selfService: config.organizationsSelfService }),
    ...organizationFormEndpoints({ organizations: membership.organizations, invitationLink, pages: organizationPages }),
    ...accountOrganizationEndpoints({
      organizations: membership.organizations,
      activeOrganizations: services.activeOrganizations,
      cookies,
      cookieSessions: services.sessions,
      bearerTokens: services.bearerTokens,
      pages: organizationPages,
    }),
  ];
}

/** What the sign-in cookies are sealed and written with. */
function cookieSettings({ config, clock, keyRing }: Services) {
  return { config, clock, keyRing };
}

/** What tells when the caller signed in (the recent-sign-in rule). */
function recentSignIn({ recentSignIn: rule, bearerTokens, sessions }: Services) {
  return { recentSignIn: rule, bearerTokens, sessions };
}

/** What the Web-standard handler of the membership authorizes with besides the endpoints' own options. */
export interface MembershipFetchHandlerOptions extends MembershipEndpointOptions, EndpointAuthorizationOptions {
  /** The headers that carry credentials (the schemes' declared ones): a request with one is answered `no-store`. @default the contract's */
  readonly credentialHeaders?: readonly string[];
}

/**
 * Gatehouse's endpoints as one Web-standard `Request → Response` handler, with the settings the
 * Fastify host gives its pipeline: the membership group (an authenticated caller unless an
 * endpoint says otherwise), the sign-in limits, the auth cookie's cross-site check and renewal,
 * antiforgery, the login redirect, the security headers and a browser's refusal pages.
 */
export function membershipFetchHandler(options: MembershipFetchHandlerOptions): EndpointsHandler {
  return membershipEndpointsHandler(membershipEndpoints(options), options);
}

/** What serves endpoints made already: the services, where they live, the pages and the authorization. */
export type MembershipServing = Pick<MembershipFetchHandlerOptions, 'services' | 'paths' | 'pages' | 'credentialHeaders'> &
  EndpointAuthorizationOptions &
  Pick<FetchHandlerOptions, 'errorSeen'>;

/** `membershipFetchHandler` over the endpoints a host made already (an instance's). */
export function membershipEndpointsHandler(endpoints: MembershipEndpoints, options: MembershipServing): EndpointsHandler {
  const { services, paths, pages, policies, evaluator, verdicts, credentialHeaders, errorSeen } = options;
  const { config, clock } = services;
  return fetchHandler(mountedEndpoints(endpoints, paths.prefix), {
    ...(errorSeen ? { errorSeen } : {}),
    policies,
    evaluator,
    ...(verdicts ? { verdicts } : {}),
    groups: [MEMBERSHIP_GROUP],
    limits: { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns },
    trustedOrigins: trustedOrigins(config),
    sessionCookies: { production: config.production, clock },
    antiforgery: { secret: services.keyRing.secrets.antiforgery, production: config.production },
    loginPage: (returnUrl) => paths.loginFor(returnUrl),
    bodyLimitBytes: config.bodyLimitBytes,
    log: services.logger,
    responseHeaders: { production: config.production, credentialPaths: paths.credentialPaths, ...(credentialHeaders ? { credentialHeaders } : {}) },
    refusalPages: { pages, prefix: paths.prefix },
  });
}

/** Gatehouse's endpoints need an authenticated caller unless they say otherwise, whatever the application's fallback policy. */
export const MEMBERSHIP_GROUP: AuthorizationMetadata<PolicyName> = Object.freeze({ authorize: [{ policy: membershipPolicies.authenticated }] });
