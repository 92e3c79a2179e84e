import type { Messages } from '../i18n/messages.ts';
import type { SignInMethod } from '../store/ports.ts';
import { postForm } from './forms.ts';
import { type Html, html } from './html.ts';
import type { AccountPaths } from './paths.ts';

/** One place the user is signed in, as the profile page lists it. */
export interface ProfileSession {
  /** Opaque; the form that ends it posts to its own action. */
  readonly id: string;
  readonly kind: 'cookie' | 'token';
  /** This browser's own session. */
  readonly current: boolean;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent: string | null;
  readonly ip: string | null;
  readonly method: SignInMethod | null;
  /** The user agent as a person reads it: "Chrome on Linux", "curl", "An app", "Unknown device". */
  readonly device: string;
  /** Where `ip` is, from the application's `pages.locate`; null without one or when unknown. */
  readonly location: string | null;
}

export interface ProfileSessionLinks {
  /** Where each session's "Sign out" posts. */
  revoke(id: string): string;
  /** "Sign out everywhere else". */
  readonly revokeOthers: string;
  /**
   * This browser's own "Sign out": the ordinary sign-out. The built-in page gives this browser's
   * entry no button of its own: the page's "Sign out" is that one.
   */
  readonly logout: string;
}

export function profileSessionLinks(paths: AccountPaths): ProfileSessionLinks {
  return { revoke: paths.sessionRevoke, revokeOthers: paths.sessionsRevokeOthers, logout: paths.logout };
}

/**
 * "Where you are signed in" on the profile page (docs/reference/http.md): each cookie session and
 * token client of the user with its device, when and how it began, its last use and where from,
 * and a "Sign out" button but for this browser's (the page's own "Sign out" ends it: one per
 * place); then "Sign out everywhere else". Plain forms with the antiforgery field, no script.
 */
export function sessionsSection(sessions: readonly ProfileSession[], links: ProfileSessionLinks, antiforgeryToken: string, m: Messages): Html {
  const others = sessions.filter((session) => !session.current);
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">${m.sessionsHeading}</h2>
<ul class="sessions">
${sessions.map((session) => html`<li>${sessionEntry(session, m)}
${session.current ? '' : postForm(links.revoke(session.id), antiforgeryToken, html``, m.sessionsSignOut)}</li>`)}
</ul>
${others.length > 0 ? postForm(links.revokeOthers, antiforgeryToken, html``, m.sessionsSignOutOthers) : html`<p>${m.sessionsNowhereElse}</p>`}</section>`;
}

/** "This browser — Chrome on Linux, Berlin": the device and place, never the raw user agent. */
function sessionEntry(session: ProfileSession, m: Messages): Html {
  const device = session.current ? html`<strong>${m.sessionsThisBrowser}</strong> — ${session.device}` : html`<strong>${session.device}</strong>`;
  return html`<p>${device}${session.location ? html`, ${session.location}` : ''}</p>
<p>${m.sessionsSignedIn({ when: when(session.createdAt) })}${session.method ? m.sessionsWith({ method: methodName(session.method, m) }) : ''}${m.sessionsLastUsed({ when: when(session.lastSeenAt) })}${session.ip ? m.sessionsFrom({ ip: session.ip }) : ''}.</p>`;
}

/** A time the way the page writes it: minutes in UTC. */
function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function methodName(method: SignInMethod, m: Messages): string {
  if (method === 'password') return m.sessionsMethodPassword;
  if (method === 'passkey') return m.sessionsMethodPasskey;
  if (method === 'two-factor') return m.sessionsMethodTwoFactor;
  return method.slice('external:'.length);
}
