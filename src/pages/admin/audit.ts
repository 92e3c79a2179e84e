import { errorSummary, field, type FormErrors } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, type AuditFilterInput, consoleNav, when } from './console.ts';

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

const TIME_HINT = 'In UTC: a day (2025-01-31) or a time (2025-01-31T14:30).';

/** The security events, newest first, filtered by type, user and time, a page at a time. */
export function adminAuditPage(model: AdminAuditPageModel): PageContent {
  const errors = model.errors ?? {};
  return {
    title: 'Audit log',
    main: html`${consoleNav(model.links, model.sections, 'audit')}
${errorSummary(errors)}
${filterForm(model, errors)}
${model.events.length === 0 ? html`<p id="audit-none">No security event matches.</p>` : eventsTable(model)}
${pager(model)}`,
  };
}

function filterForm({ links, filters }: AdminAuditPageModel, errors: FormErrors): Html {
  const text = (name: keyof AuditFilterInput, label: string, hint?: string) =>
    field({ name, id: `filter-${name}`, label, value: filters[name], autocomplete: 'off', required: false, hint }, errors);
  return html`<form method="get" action="${links.audit}" role="search" aria-label="Filter the events" novalidate>
${text('type', 'Event type', 'Such as user.locked or signin.failed.')}
${text('userId', 'User id')}
${text('from', 'From', TIME_HINT)}
${text('to', 'Until', `${TIME_HINT} A day counts whole.`)}
<button type="submit">Filter</button>
</form>
${hasFilters(filters) ? html`<p><a href="${links.audit}">Clear the filters</a></p>` : ''}`;
}

function hasFilters(filters: AuditFilterInput): boolean {
  return Object.values(filters).some((value) => value !== undefined && value !== '');
}

function eventsTable({ events, links, filters }: AdminAuditPageModel): Html {
  const rows = events.map(
    (event) => html`<tr>
<th scope="row">${when(event.at)}</th>
<td><a href="${links.auditPage({ ...filters, type: event.type })}" aria-label="Only ${event.type} events">${event.type}</a></td>
<td>${event.userId === null ? '' : html`<a href="${links.user(event.userId)}">${event.userId}</a> <a href="${links.auditPage({ ...filters, userId: String(event.userId) })}" aria-label="Only the events of user ${event.userId}">(events)</a>`}</td>
<td>${event.ip ?? ''}</td>
<td>${event.detail === null ? '' : html`<code>${event.detail}</code>`}</td>
</tr>`,
  );
  return html`<table class="admin-table">
<caption>Security events, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">User</th><th scope="col">From</th><th scope="col">Detail</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

/** Back to the newest events, and on to older ones, the filters kept. */
function pager({ links, filters, before, next }: AdminAuditPageModel): Html {
  if (before === null && next === null) return html``;
  const newest = before === null ? '' : html`<a href="${links.auditPage(filters)}">Newest events</a> `;
  const older = next === null ? '' : html`<a href="${links.auditPage(filters, next)}" rel="next">Older events</a>`;
  return html`<nav aria-label="Pages of events">${newest}${older}</nav>`;
}
