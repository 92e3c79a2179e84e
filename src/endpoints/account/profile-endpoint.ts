import type { ExternalLogins } from '../../identity/external-logins.ts';
import type { PasskeyManager } from '../../identity/passkeys.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { Phrase } from '../../i18n/phrase.ts';
import type { PasskeyView } from '../../pages/passkeys/passkey-markup.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { User } from '../../store/ports.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { pageResponse } from '../page-response.ts';
import { prefersHtml } from '../browser-navigation.ts';
import { NO_STORE } from '../no-store.ts';
import type { ProfilePage } from './profile-page.ts';
import { signedInUser } from '../signed-in-user.ts';

/** What the profile reads. */
export interface ProfileEndpointOptions {
  readonly pages: Pick<PageRendering, 'headersFor'>;
  readonly users: Pick<UserManager, 'findById'>;
  readonly externalLogins: Pick<ExternalLogins, 'providersOf'>;
  /** The user's passkeys, for the profile page, when passkeys are on; else null. */
  readonly passkeys: Pick<PasskeyManager, 'list'> | null;
  /** The external providers configured, by route name: the page offers to link those not linked yet. */
  readonly providers: readonly string[];
  readonly profilePage: ProfilePage;
}

/** What the profile page says after the form that sent the browser back to it (`?status=`). */
const PROFILE_NOTICES: ReadonlyMap<string, Phrase> = new Map<string, Phrase>([
  ['password-changed', (m) => m.profilePasswordChangedNotice],
  ['passkey-added', (m) => m.profilePasskeyAddedNotice],
  ['passkey-renamed', (m) => m.profilePasskeyRenamedNotice],
  ['passkey-removed', (m) => m.profilePasskeyRemovedNotice],
  ['session-ended', (m) => m.profileSessionEndedNotice],
  ['sessions-ended', (m) => m.profileSessionsEndedNotice],
]);

/**
 * `GET /account/profile` (policy `User`: an API-key caller acts for no user and gets 403): the
 * signed-in user as JSON, or the profile page for a browser, read afresh from the store.
 */
export function profileEndpoint({ pages, users, externalLogins, passkeys, providers, profilePage }: ProfileEndpointOptions): Endpoint {
  return defineEndpoint({
    method: 'GET',
    path: '/account/profile',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      const user = await signedInUser(users, request);
      const logins = await externalLogins.providersOf(user.id);
      if (prefersHtml(request.headers.accept)) {
        const { status } = request.query;
        const notice = PROFILE_NOTICES.get(typeof status === 'string' ? status : '')?.(request.messages());
        const linkable = providers.filter((provider) => !logins.includes(provider));
        const passkeyList = passkeys ? { passkeys: await passkeyViews(passkeys, user) } : {};
        const listed = await profilePage.sessionsOf(request);
        const extras = { logins, linkable, ...passkeyList, ...(notice ? { notice } : {}), ...(listed ? { sessions: listed } : {}) };
        return pageResponse(pages, profilePage.render(request, user, extras));
      }
      return {
        status: 200,
        headers: NO_STORE,
        body: {
          id: user.id,
          email: user.email,
          userName: user.userName,
          emailConfirmed: user.emailConfirmed,
          phoneNumber: user.phoneNumber,
          phoneConfirmed: user.phoneConfirmed,
          twoFactorEnabled: user.twoFactorEnabled,
          roles: user.roles,
          claims: user.claims.map(({ type, value }) => ({ type, value })),
          logins: logins.map((provider) => ({ provider })),
        },
      };
    },
  });
}

/** The user's passkeys as the profile lists them (times as the JSON routes write them). */
async function passkeyViews(passkeys: Pick<PasskeyManager, 'list'>, user: User): Promise<PasskeyView[]> {
  const list = await passkeys.list(user);
  return list.map((passkey) => ({
    id: passkey.credentialId,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt).toISOString(),
    lastUsedAt: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt).toISOString(),
    backedUp: passkey.backedUp,
  }));
}
