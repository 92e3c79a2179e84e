import type { RouteContext } from './route-context.ts';
import type { AccountRouteOptions } from './account.ts';
import type { AccountPasskeyRouteOptions } from './account-passkeys.ts';
import type { AccountRegistrationRouteOptions } from './account-registration.ts';
import type { AccountTwoFactorRouteOptions } from './account-two-factor.ts';
import type { AuthRefreshRouteOptions } from './auth-refresh.ts';
import type { AuthTokenRouteOptions } from './auth-token.ts';
import type { ExternalLoginRouteOptions } from './external-login.ts';
import type { PasskeyLoginRouteOptions } from './passkey-login.ts';

/** What each sign-in and account route file is given: only the use cases and settings it calls. */
export interface MembershipRouteOptions {
  readonly account: AccountRouteOptions;
  readonly registration: AccountRegistrationRouteOptions;
  readonly twoFactor: AccountTwoFactorRouteOptions;
  readonly passkeys: AccountPasskeyRouteOptions;
  readonly passkeyLogin: PasskeyLoginRouteOptions;
  readonly externalLogin: ExternalLoginRouteOptions;
  readonly token: AuthTokenRouteOptions;
  readonly refresh: AuthRefreshRouteOptions;
}

/** Picks, from the services, what each sign-in and account route file uses. */
export function membershipRouteOptions({ services, paths, passkeys: passkeysOn, sessionsListed }: RouteContext): MembershipRouteOptions {
  const { config, clock, keyRing, sessions, users, signIn, passkeys } = services;
  const limits = { config, rateLimiter: services.rateLimiter, signInTurns: services.signInTurns };
  const cookies = { config, clock, keyRing };
  const recent = { recentSignIn: services.recentSignIn, bearerTokens: services.bearerTokens, sessions };
  return {
    account: {
      ...limits,
      ...cookies,
      paths,
      sessions,
      signIn,
      signOut: services.signOut,
      passwordChange: services.passwordChange,
      users,
      externalLogins: services.externalLogins,
      passkeys: passkeysOn ? passkeys : null,
      userSessions: sessionsListed ? services.userSessions : null,
    },
    registration: { ...limits, paths, registration: services.registration, passwordReset: services.passwordReset },
    twoFactor: { ...limits, ...cookies, ...recent, paths, signIn, twoFactor: services.twoFactor, users },
    passkeys: { ...cookies, ...recent, passkeys, users },
    passkeyLogin: { ...limits, ...cookies, passkeys, signIn },
    externalLogin: { ...limits, ...cookies, ...recent, paths, providerSignIn: services.providerSignIn, externalLogins: services.externalLogins, users },
    token: { ...limits, paths, signIn },
    refresh: { config, paths, refreshTokens: services.refreshTokens },
  };
}
