import { Type } from '@sinclair/typebox';
import type { AuditTrail } from '../../membership/audit-trail.ts';
import { GatehouseError } from '../../security/errors.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';

/** A page's size and the id it starts below, as text: `0`, `-1`, `1.5` and `1e3` are 400s. */
const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })),
    before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,14}$' })),
  },
  { additionalProperties: false },
);

const AUDIT_PAGE_DEFAULT = 50;
const AUDIT_PAGE_MAX = 200;

/** What the audit endpoint reads. */
export interface AdminAuditUseCases {
  readonly auditTrail: Pick<AuditTrail, 'page'>;
}

/**
 * `GET /admin/audit?limit=&before=`: the security events, newest first, a page at a time (50 by
 * default, at most 200); `next` is the `before` of the next page, null on the last. Times in
 * ISO-8601 UTC.
 */
export function adminAuditEndpoint({ auditTrail }: AdminAuditUseCases): Endpoint {
  return defineEndpoint({
    method: 'GET',
    path: '/admin/audit',
    authorization: {},
    query: AuditQuery,
    async handle(request) {
      const { limit: limitText, before: beforeText } = request.query as { limit?: string; before?: string };
      const limit = limitText === undefined ? AUDIT_PAGE_DEFAULT : Number(limitText);
      if (limit > AUDIT_PAGE_MAX) throw GatehouseError.validation({ limit: [(m) => m.problemLimitAtMost({ max: AUDIT_PAGE_MAX })] });
      const before = beforeText === undefined ? undefined : Number(beforeText);
      const page = await auditTrail.page({ limit, before });
      return { status: 200, body: { events: page.events.map((event) => ({ ...event, at: new Date(event.at).toISOString() })), next: page.next } };
    },
  });
}
