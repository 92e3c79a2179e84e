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
}

export interface ProfileSessionLinks {
  /** Where each session's "Sign out" posts. */
  revoke(id: string): string;
  /** "Sign out everywhere else". */
  readonly revokeOthers: string;
  /** This browser's own "Sign out": the ordinary sign-out. */
  readonly logout: string;
}

export function profileSessionLinks(paths: AccountPaths): ProfileSessionLinks {
  return { revoke: paths.sessionRevoke, revokeOthers: paths.sessionsRevokeOthers, logout: paths.logout };
}

/**
 * "Where you are signed in" on the profile page (docs/reference/http.md): each cookie session and
 * token client of the user with when and how it began, its last use and where from, and a "Sign
 * out" button; then "Sign out everywhere else". Plain forms with the antiforgery field, no script.
 */
export function sessionsSection(sessions: readonly ProfileSession[], links: ProfileSessionLinks, antiforgeryToken: string): Html {
  const others = sessions.filter((session) => !session.current);
  return html`<section id="sessions" aria-labelledby="sessions-heading"><h2 id="sessions-heading">Where you are signed in</h2>
<ul class="sessions">
${sessions.map((session) => html`<li>${sessionEntry(session)}
${postForm(session.current ? links.logout : links.revoke(session.id), antiforgeryToken, html``, 'Sign out')}</li>`)}
</ul>
${others.length > 0 ? postForm(links.revokeOthers, antiforgeryToken, html``, 'Sign out everywhere else') : html`<p>You are signed in nowhere else.</p>`}</section>`;
}

function sessionEntry(session: ProfileSession): Html {
  const what = session.kind === 'cookie' ? 'Browser' : 'App (tokens)';
  return html`<p><strong>${session.current ? 'This browser' : what}</strong>${session.userAgent ? html` — ${session.userAgent}` : ''}</p>
<p>Signed in ${when(session.createdAt)}${session.method ? html` with ${methodName(session.method)}` : ''}; last used ${when(session.lastSeenAt)}${session.ip ? html` from ${session.ip}` : ''}.</p>`;
}

/** A time the way the page writes it: minutes in UTC. */
function when(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function methodName(method: SignInMethod): string {
  if (method === 'password') return 'a password';
  if (method === 'passkey') return 'a passkey';
  if (method === 'two-factor') return 'a password and a second factor';
  return method.slice('external:'.length);
}
