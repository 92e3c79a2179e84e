/**
 * What every page of the admin console shares: the sections it has (they follow the features
 * that are on), its links, its navigation, and the way it writes times and one-button forms.
 */
import type { AdminMessages } from '../../i18n/admin-messages.ts';
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
export function consoleNav(
  links: AdminLinks,
  sections: AdminSections,
  current: AdminSection,
  m: AdminMessages,
  { within = false }: { readonly within?: boolean } = {},
): Html {
  const entries: [AdminSection, string, string, boolean][] = [
    ['home', links.home, m.adminNavHome, true],
    ['users', links.users, m.adminNavUsers, true],
    ['audit', links.audit, m.adminNavAudit, true],
    ['apiKeys', links.apiKeys, m.adminNavApiKeys, sections.apiKeys],
    ['signingKeys', links.signingKeys, m.adminNavSigningKeys, sections.signingKeys],
    ['organizations', links.organizations, m.adminNavOrganizations, sections.organizations],
  ];
  const shown = entries.filter(([, , , on]) => on);
  return html`<nav aria-label="${m.adminNavLabel}">${shown.map(
    ([section, href, label]) => html`<a href="${href}"${section === current ? html` aria-current="${within ? 'true' : 'page'}"` : ''}>${label}</a> `,
  )}<a href="${links.profile}">${m.adminNavAccount}</a></nav>`;
}

/** A time as the console writes it: to the second, in UTC, machine-readable too; the same in every language. */
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

/**
 * A table of the console inside a region that scrolls sideways when the table is wider than the
 * screen, so that the page never does. The region takes the keyboard's focus, so that a keyboard
 * scrolls it too, and is named by the caption's words (WCAG 2.1.1, 4.1.2).
 */
export function adminTable(caption: string, head: readonly string[], rows: readonly Html[]): Html {
  return html`<div class="admin-table-scroll" role="region" aria-label="${caption}" tabindex="0">
<table class="admin-table">
<caption>${caption}</caption>
<thead><tr>${head.map((name) => html`<th scope="col">${name}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

/** Roles as a sentence's list, or that there are none. */
export function rolesText(roles: readonly string[], m: AdminMessages): string {
  return roles.length > 0 ? roles.join(', ') : m.adminNoRoleNames;
}

/** Stands where a message's markup goes: a character of Unicode's private use, which no text holds. */
const MARKUP_PLACE = '\u{E000}';

/**
 * A message with markup inside it (a link, a `<time>`): the catalogue's function writes the
 * sentence around the markup's place, so that each language keeps its own word order, and the
 * words around it stay escaped. A message that leaves no place gets the markup at its end.
 */
export function withMarkup(message: (place: string) => string, markup: Html): Html {
  const [before = '', ...after] = message(MARKUP_PLACE).split(MARKUP_PLACE);
  return html`${before}${markup}${after.join('')}`;
}
