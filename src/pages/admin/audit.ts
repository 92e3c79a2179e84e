import type { AdminMessages } from '../../i18n/admin-messages.ts';
import { errorSummary, field, type FormErrors } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, type AuditFilterInput, consoleNav, when } from './console.ts';

/** A security event as the log shows it. */
export interface AdminAuditEventView {
  readonly id: number;
  readonly type: string;
  readonly userId: number | null;
  /** Epoch ms. */
  readonly at: number;
  readonly ip: string | null;
  /** Its detail as JSON text, or null. */
  readonly detail: string | null;
}

export interface AdminAuditPageData extends AdminPageBase {
  /** The filters as typed, kept in the form and in the paging links. */
  readonly filters: AuditFilterInput;
  readonly events: readonly AdminAuditEventView[];
  /** The `before` of this page: null on the newest. */
  readonly before: number | null;
  /** The `before` of the next (older) page: null on the last. */
  readonly next: number | null;
}

export interface AdminAuditPageModel extends AdminAuditPageData {
  readonly links: AdminLinks;
}

/** The security events, newest first, filtered by type, user and time, a page at a time. */
export function adminAuditPage(model: AdminAuditPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  return {
    title: m.adminAuditTitle,
    main: html`${consoleNav(model.links, model.sections, 'audit', m)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${filterForm(model, errors, m)}
${model.events.length === 0 ? html`<p id="audit-none">${m.adminAuditNone}</p>` : eventsTable(model, m)}
${pager(model, m)}`,
  };
}

function filterForm({ links, filters }: AdminAuditPageModel, errors: FormErrors, m: AdminMessages): Html {
  const text = (name: keyof AuditFilterInput, label: string, hint?: string) =>
    field({ name, id: `filter-${name}`, label, value: filters[name], autocomplete: 'off', required: false, hint }, errors);
  return html`<form method="get" action="${links.audit}" role="search" aria-label="${m.adminAuditFilterLabel}" novalidate>
${text('type', m.adminAuditType, m.adminAuditTypeHint)}
${text('userId', m.adminUserId)}
${text('from', m.adminAuditFrom, m.adminAuditFromHint)}
${text('to', m.adminAuditUntil, m.adminAuditUntilHint)}
<button type="submit">${m.adminAuditFilter}</button>
</form>
${hasFilters(filters) ? html`<p><a href="${links.audit}">${m.adminAuditClear}</a></p>` : ''}`;
}

function hasFilters(filters: AuditFilterInput): boolean {
  return Object.values(filters).some((value) => value !== undefined && value !== '');
}

function eventsTable(model: AdminAuditPageModel, m: AdminMessages): Html {
  const { links, filters } = model;
  const rows = model.events.map(
    (event) => html`<tr>
<th scope="row">${when(event.at)}</th>
<td><a href="${links.auditPage({ ...filters, type: event.type })}" aria-label="${m.adminAuditOnlyType({ type: event.type })}">${event.type}</a></td>
<td>${event.userId === null ? '' : userLinks(event.userId, model, m)}</td>
<td>${event.ip ?? ''}</td>
<td>${event.detail === null ? '' : html`<code>${event.detail}</code>`}</td>
</tr>`,
  );
  return adminTable(m.adminAuditCaption, [m.adminAuditTime, m.adminAuditTypeColumn, m.adminAuditUser, m.adminAddress, m.adminAuditDetail], rows);
}

/** The event's user, a link to their page, and one that filters by them. */
function userLinks(userId: number, { links, filters }: AdminAuditPageModel, m: AdminMessages): Html {
  return html`<a href="${links.user(userId)}">${userId}</a> <a href="${links.auditPage({ ...filters, userId: String(userId) })}" aria-label="${m.adminAuditOnlyUser({ userId })}">${m.adminAuditUserEvents}</a>`;
}

/** Back to the newest events, and on to older ones, the filters kept. */
function pager({ links, filters, before, next }: AdminAuditPageModel, m: AdminMessages): Html {
  if (before === null && next === null) return html``;
  const newest = before === null ? '' : html`<a href="${links.auditPage(filters)}">${m.adminAuditNewest}</a> `;
  const older = next === null ? '' : html`<a href="${links.auditPage(filters, next)}" rel="next">${m.adminAuditOlder}</a>`;
  return html`<nav aria-label="${m.adminAuditPagesLabel}">${newest}${older}</nav>`;
}
