import { type Static, Type } from '@sinclair/typebox';
import type { Config } from '../../config/config.ts';
import { AccountLockedError } from '../../identity/credential-checks.ts';
import type { SignedInSession } from '../../identity/sessions.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { PasswordChange } from '../../membership/password-change.ts';
import type { PageRendering } from '../../pages/rendering.ts';
import type { Clock } from '../../platform/clock.ts';
import { accountLockedError } from '../account-locked.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import { pageResponse, seeOther } from '../page-response.ts';
import { userAccount } from '../sign-in-limits.ts';
import { NO_STORE } from '../no-store.ts';
import type { AccountRedirects } from './account-paths.ts';
import { PASSWORD_FIELD_MAX } from './password-field.ts';
import type { ProfilePage } from './profile-page.ts';
import { signedInUser, signedInUserId } from '../signed-in-user.ts';

/** What the password change uses. */
export interface PasswordChangeEndpointOptions {
  readonly config: Pick<Config, 'lockoutSeconds'>;
  readonly clock: Clock;
  readonly pages: Pick<PageRendering, 'headersFor'>;
  readonly paths: Pick<AccountRedirects, 'profile'>;
  readonly passwordChange: PasswordChange;
  readonly users: Pick<UserManager, 'findById'>;
  readonly cookies: CookieSignIn;
  readonly profilePage: ProfilePage;
}

const PasswordChangeRequest = Type.Object(
  {
    currentPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
    newPassword: Type.String({ maxLength: PASSWORD_FIELD_MAX }),
  },
  { additionalProperties: false },
);
type PasswordChangeRequest = Static<typeof PasswordChangeRequest>;

/**
 * `POST /account/password` (policy `User`): changes the signed-in user's password, which ends every
 * other session and token; the asking browser's session goes on under a re-issued cookie. 204, or
 * the profile form's 303 back to the profile; a refused form gets the profile page with the error.
 */
export function passwordChangeEndpoint(options: PasswordChangeEndpointOptions): Endpoint {
  const { config, clock, pages, paths, passwordChange, users, cookies, profilePage } = options;
  return defineEndpoint<PasswordChangeRequest>({
    method: 'POST',
    path: '/account/password',
    authorization: SIGNED_IN_USER,
    body: PasswordChangeRequest,
    forms: true,
    successStatus: 204,
    // The current password is a guess like any other: the signed-in user's budget counts it.
    rateLimits: { account: (_body, request) => userAccount(signedInUserId(request)) },
    async formErrors(request, errors) {
      const user = await signedInUser(users, request);
      const listed = await profilePage.sessionsOf(request);
      return pageResponse(pages, profilePage.render(request, user, { errors, ...(listed ? { sessions: listed } : {}) }));
    },
    async handle(request) {
      const user = await signedInUser(users, request);
      let session: SignedInSession | null;
      try {
        session = await passwordChange.change(user, request.body, { by: user.id, ip: request.ip }, cookies.presented(request));
      } catch (error) {
        if (error instanceof AccountLockedError) throw accountLockedError(error, clock, config.lockoutSeconds);
        throw error;
      }
      // Every other session, refresh token and access token ended with the security stamp; the
      // session that asked goes on under the new one.
      const answerCookies = new CookieList();
      if (session !== null) cookies.setSession(request, answerCookies, session);
      const set = { headers: NO_STORE, cookies: answerCookies.cookies };
      if (request.form) return seeOther(`${paths.profile}?status=password-changed`, set);
      return { status: 204, ...set };
    },
  });
}
