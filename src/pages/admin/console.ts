/**
 * What every page of the admin console shares: the sections it has (they follow the features
 * that are on), its links, its navigation, and the way it writes times and one-button forms.
 */
import { antiforgeryField, type FormErrors } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { AccountPaths } from '../paths.ts';
import type { AdminPaths } from './admin-paths.ts';

/** The parts of the console that are there: each follows a feature of the service. */
export interface AdminSections {
  /** Users' sessions are listed (features.sessions). */
  readonly sessions: boolean;
  readonly apiKeys: boolean;
  readonly signingKeys: boolean;
  /** features.organizations. */
  readonly organizations: boolean;
}

/** What every console page's data carries. */
export interface AdminPageBase {
  readonly sections: AdminSections;
  /** What the form that sent the browser back here did. */
  readonly notice?: string;
  /** The refusal of the form that brought the page back. */
  readonly errors?: FormErrors;
}

/** The audit log's filters as typed into its form (text, checked by the route). */
export interface AuditFilterInput {
  readonly type?: string;
  readonly userId?: string;
  readonly from?: string;
  readonly to?: string;
}

/** The console's paths, the pages' own with their query strings, and the way back to the account. */
export interface AdminLinks extends AdminPaths {
  readonly profile: string;
  /** The users page for a search and a page number (1 is the first). */
  usersPage(query: string, page: number): string;
  /** The audit log with these filters, from the event below `before` (the newest when null). */
  auditPage(filters: AuditFilterInput, before?: number | null): string;
}

export function adminLinks(_data: unknown, paths: AccountPaths): AdminLinks {
  const { admin } = paths;
  return {
    ...admin,
    profile: paths.profile,
    usersPage: (query, page) => withParameters(admin.users, { q: query, page: page > 1 ? String(page) : '' }),
    auditPage: (filters, before) => withParameters(admin.audit, { ...filters, before: before ? String(before) : '' }),
  };
}

/** `path?name=value&…` with the values encoded, leaving out the empty ones. */
function withParameters(path: string, parameters: Readonly<Record<string, string | undefined>>): string {
  const query = new URLSearchParams(Object.entries(parameters).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
  return query === '' ? path : `${path}?${query}`;
}

export type AdminSection = 'home' | 'users' | 'audit' | 'apiKeys' | 'signingKeys' | 'organizations';

/**
 * The console's navigation, the current section marked for assistive technology: as the page
 * itself, or (`within`) as the section a page such as one user's belongs to.
 */
export function consoleNav(links: AdminLinks, sections: AdminSections, current: AdminSection, { within = false }: { readonly within?: boolean } = {}): Html {
  const entries: [AdminSection, string, string, boolean][] = [
    ['home', links.home, 'Overview', true],
    ['users', links.users, 'Users', true],
    ['audit', links.audit, 'Audit log', true],
    ['apiKeys', links.apiKeys, 'API keys', sections.apiKeys],
    ['signingKeys', links.signingKeys, 'Signing keys', sections.signingKeys],
    ['organizations', links.organizations, 'Organizations', sections.organizations],
  ];
  const shown = entries.filter(([, , , on]) => on);
  return html`<nav aria-label="Admin console">${shown.map(
    ([section, href, label]) => html`<a href="${href}"${section === current ? html` aria-current="${within ? 'true' : 'page'}"` : ''}>${label}</a> `,
  )}<a href="${links.profile}">Your account</a></nav>`;
}

/** A time as the console writes it: to the second, in UTC, machine-readable too. */
export function when(at: number): Html {
  const iso = new Date(at).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/**
 * A form of one button, with hidden fields: its visible word, and a name that says which row it
 * acts on (`Remove role Editor`), so that a list of them is not a list of "Remove".
 */
export function buttonForm(action: string, antiforgeryToken: string, word: string, name: string, fields: Readonly<Record<string, string>> = {}): Html {
  const hidden = Object.entries(fields).map(([field, value]) => html`<input type="hidden" name="${field}" value="${value}">`);
  return html`<form method="post" action="${action}">
${antiforgeryField(antiforgeryToken)}${hidden}
<button type="submit"${word === name ? '' : html` aria-label="${name}"`}>${word}</button>
</form>`;
}

/** Roles as a sentence's list, or that there are none. */
export function rolesText(roles: readonly string[]): string {
  return roles.length > 0 ? roles.join(', ') : 'none';
}
