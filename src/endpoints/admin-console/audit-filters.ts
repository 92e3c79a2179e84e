import type { AdminMessages } from '../../i18n/admin-messages.ts';
import type { AuditFilterInput } from '../../pages/admin/console.ts';
import type { FieldErrors } from '../../security/errors.ts';
import type { AuditQuery } from '../../store/ports.ts';

/** The query parameters of the audit log's filters: the console's page reads them; the JSON API takes none of them. */
export const AUDIT_FILTERS = ['type', 'userId', 'from', 'to'] as const;

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z?$/;
const USER_ID = /^[1-9][0-9]{0,14}$/;

/** The filters of the audit log, or what is wrong with them by field. */
export type AuditFilters = { readonly filters: Omit<AuditQuery, 'limit' | 'before'> } | { readonly errors: FieldErrors };

/** The filters as the form sent them: empty fields are no filter, and every field is checked, refused in the words of `m`. */
export function auditFilters(input: AuditFilterInput, m: AdminMessages): AuditFilters {
  const errors: Record<string, string[]> = {};
  const refuse = (field: string, message: string) => (errors[field] ??= []).push(message);
  const type = input.type?.trim() || undefined;
  if (type !== undefined && type.length > 64) refuse('type', m.adminAuditTypeTooLong);
  const userIdText = input.userId?.trim() || undefined;
  if (userIdText !== undefined && !USER_ID.test(userIdText)) refuse('userId', m.adminAuditUserIdInvalid);
  const from = timeOf(input.from, 'start');
  const to = timeOf(input.to, 'end');
  if (from === null) refuse('from', m.adminAuditTimeInvalid);
  if (to === null) refuse('to', m.adminAuditTimeInvalid);
  if (from != null && to != null && from >= to) refuse('to', m.adminAuditUntilBeforeFrom);
  if (Object.keys(errors).length > 0) return { errors };
  return { filters: { type, userId: userIdText === undefined ? undefined : Number(userIdText), from: from ?? undefined, to: to ?? undefined } };
}

/**
 * A bound of the time filter in epoch ms: undefined for none, null for text that is no time. A
 * day alone counts whole: from its start, until its end.
 */
function timeOf(text: string | undefined, bound: 'start' | 'end'): number | null | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  if (DAY.test(value)) {
    const start = utc(`${value}T00:00:00`);
    return start === null ? null : bound === 'end' ? start + DAY_MS : start;
  }
  return TIME.test(value) ? utc(value.replace(' ', 'T').replace(/Z$/, '')) : null;
}

/** The time of an ISO local date-time read as UTC; null for a date that does not exist (February 30th). */
function utc(dateTime: string): number | null {
  const at = Date.parse(`${dateTime}Z`);
  if (Number.isNaN(at)) return null;
  return new Date(at).toISOString().slice(0, 10) === dateTime.slice(0, 10) ? at : null;
}
