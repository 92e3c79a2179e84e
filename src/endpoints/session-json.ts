import type { ListedSession } from '../identity/user-sessions.ts';

/**
 * A listed session as JSON: times in ISO-8601 UTC, as every answer writes them (`/admin/audit`'s `at`).
 * Also the admin API's list (`GET /admin/users/:id/sessions`).
 */
export function sessionJson(session: ListedSession) {
  const { id, kind, current, userAgent, ip, method } = session;
  return {
    id,
    kind,
    current,
    createdAt: new Date(session.createdAt).toISOString(),
    lastSeenAt: new Date(session.lastSeenAt).toISOString(),
    expiresAt: new Date(session.expiresAt).toISOString(),
    userAgent,
    ip,
    method,
  };
}
