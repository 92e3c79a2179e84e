import { describeDevice } from '../../identity/device-description.ts';
import type { SessionManager } from '../../identity/sessions.ts';
import type { ListedSession, UserSessions } from '../../identity/user-sessions.ts';
import type { Html } from '../../pages/html.ts';
import type { ProfilePageData } from '../../pages/profile.ts';
import type { ProfileSession } from '../../pages/profile-sessions.ts';
import type { LocateAddress, PageRendering } from '../../pages/rendering.ts';
import type { User } from '../../store/ports.ts';
import type { CookieSignIn } from '../cookie-sign-in.ts';
import type { EndpointRequest } from '../endpoint.ts';
import { signedInUserId } from '../signed-in-user.ts';

/** What the profile page shows beside the user's own fields. */
export type ProfileExtras = Partial<Pick<ProfilePageData, 'errors' | 'notice' | 'logins' | 'linkable' | 'passkeys' | 'sessions'>>;

/** What the profile page reads: the pages, this browser's session, and the user's sessions when they are listed. */
export interface ProfilePageDependencies {
  /** The pages, with the application's `locate` where it gave one. */
  readonly pages: Pick<PageRendering, 'render' | 'language'> & { readonly locate?: LocateAddress | null };
  readonly cookies: Pick<CookieSignIn, 'presentedSession'>;
  readonly sessions: Pick<SessionManager, 'current'>;
  /** "Where you are signed in", when the profile page lists the user's sessions; else null. */
  readonly userSessions: Pick<UserSessions, 'list'> | null;
}

/**
 * The signed-in user's profile page: shown by `GET /account/profile`, and again by the forms on it
 * that are refused (the password change), with their errors.
 */
export class ProfilePage {
  constructor(private readonly dependencies: ProfilePageDependencies) {}

  render(request: Pick<EndpointRequest, 'antiforgeryToken' | 'headers'>, user: User, extras: ProfileExtras = {}): Html {
    return this.dependencies.pages.render(
      'profile',
      {
        antiforgeryToken: request.antiforgeryToken(),
        email: user.email,
        userName: user.userName,
        emailConfirmed: user.emailConfirmed,
        phoneNumber: user.phoneNumber,
        phoneConfirmed: user.phoneConfirmed,
        twoFactorEnabled: user.twoFactorEnabled,
        roles: user.roles,
        logins: [],
        ...extras,
      },
      this.dependencies.pages.language(request.headers['accept-language']),
    );
  }

  /** The user's sessions for the page, this browser's marked; undefined when sessions are not listed. */
  async sessionsOf(request: Pick<EndpointRequest, 'user' | 'headers'>): Promise<readonly ProfileSession[] | undefined> {
    const { userSessions, sessions, cookies } = this.dependencies;
    if (userSessions === null) return undefined;
    const token = cookies.presentedSession(request);
    const current = token === null ? null : await sessions.current(token);
    const listed = await userSessions.list(signedInUserId(request), current?.valid ? { sessionId: current.sessionId } : {});
    const places = await placesOf(listed, this.dependencies.pages.locate ?? null);
    return listed.map((session) => ({
      ...session,
      device: describeDevice(session.userAgent, session.kind),
      location: session.ip === null ? null : (places.get(session.ip) ?? null),
    }));
  }
}

/** Each address's place, asked once per address: a user's sessions often share one. */
async function placesOf(sessions: readonly ListedSession[], locate: LocateAddress | null): Promise<ReadonlyMap<string, string | null>> {
  if (locate === null) return new Map();
  const addresses = [...new Set(sessions.flatMap((session) => (session.ip === null ? [] : [session.ip])))];
  return new Map(await Promise.all(addresses.map(async (ip) => [ip, await placeOf(locate, ip)] as const)));
}

/** The application's answer; a lookup that fails shows the address alone rather than failing the page it decorates. */
async function placeOf(locate: LocateAddress, ip: string): Promise<string | null> {
  try {
    const place = await locate(ip);
    return typeof place === 'string' && place.trim() !== '' ? place.trim() : null;
  } catch {
    return null;
  }
}
