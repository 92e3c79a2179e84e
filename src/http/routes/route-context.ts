import { Type } from '@sinclair/typebox';
import type { AuthorizationService, PolicyProvider } from '../../security/authorization/index.ts';
import type { SchemeOptions } from '../../schemes/authentication-schemes.ts';
import type { Services } from '../../services.ts';
import type { MembershipPaths } from '../membership-paths.ts';

/**
 * What the plugin wires the membership routes from: the domain services, the authorization
 * engine, and where the routes are mounted (for links, redirects and cookie paths). Route files
 * never see it: each receives only the use cases and settings it calls, picked from it in
 * `membership-route-options.ts` and `app.ts`.
 */
export interface RouteContext {
  readonly services: Services;
  readonly authorization: AuthorizationService;
  /** The application's named, default and fallback policies. */
  readonly policies: PolicyProvider<string>;
  /** Which schemes are on, for whatever authenticates outside the request pipeline (sockets). */
  readonly schemeOptions: SchemeOptions;
  readonly paths: MembershipPaths;
  /** Whether the passkey routes are on (features.passkeys); the pages offer passkeys only when the RP ID is also a host name. */
  readonly passkeys: boolean;
  /** "Where you are signed in" is on: the profile page shows the user's sessions. */
  readonly sessionsListed?: boolean;
}

/** Titles 1–200 characters and bodies 1–10,000, for documents and posts alike. */
export const Title = Type.String({ minLength: 1, maxLength: 200 });
export const Body = Type.String({ minLength: 1, maxLength: 10_000 });
