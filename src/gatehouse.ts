import type { Config } from './config/config.ts';
import type { SchemeOptions } from './schemes/authentication-schemes.ts';
import type { ApiKeyAdministration } from './membership/api-key-administration.ts';
import type { AuditTrail } from './membership/audit-trail.ts';
import type { SessionEnding } from './membership/session-ending.ts';
import type { SigningKeyAdministration } from './membership/signing-key-administration.ts';
import type { UserAdministration } from './membership/user-administration.ts';
import type { Organizations } from './organizations/organizations.ts';
import type { Clock } from './platform/clock.ts';
import type { GatehouseMetrics } from './platform/metrics/gatehouse-metrics.ts';
import type { Readiness } from './platform/readiness.ts';
import type { RedisConnection } from './platform/redis-connection.ts';
import type { PolicyEvaluator } from './security/authentication/index.ts';
import type { AuthorizationService, PolicyProvider } from './security/authorization/index.ts';
import type { ApplicationStore } from './store/application-store.ts';
import type { OutboxMessage } from './store/ports.ts';

/**
 * What Gatehouse's plugin offers the application (`app.gatehouse` on Fastify). Every change of
 * users, API keys, signing keys and sessions goes through the administration use cases: each
 * call writes its audit event and announces its revocation, so the application's changes obey
 * the same rules as the admin API's (an old access token is refused once a role is taken away).
 */
export interface Gatehouse {
  readonly config: Config;
  /** The application's own tables on Gatehouse's connections (decision 0045), and the engine. */
  readonly store: ApplicationStore;
  /** Users: created, listed, found; roles, claims, locks and deletion, with the audit trail and revocation. */
  readonly users: UserAdministration;
  /** API keys of the `ApiKey` scheme, by client: created, listed, revoked. */
  readonly apiKeys: ApiKeyAdministration;
  /** The signing keys of access tokens: rotated and revoked. */
  readonly signingKeys: SigningKeyAdministration;
  /** "Where you are signed in": a user's sessions and refresh families, listed and ended. */
  readonly sessions: SessionEnding;
  /** The security events, newest first (as `GET /admin/audit`). */
  readonly audit: AuditTrail;
  /**
   * Organizations, their members and invitations (docs/organizations.md), with the audit trail
   * and revocation: what the `/orgs` API calls, and the application's own code (a seed, a job).
   */
  readonly organizations: Organizations;
  /**
   * The dev outbox: the mail and SMS kept instead of sent when no SMTP or SMS channel is
   * configured outside production, newest first (`{ recipient, limit }`: exact recipient, at most
   * `limit`, 100 by default). For tests and development, to read a confirmation link or a code.
   */
  readonly outbox: { list(query?: { recipient?: string; limit?: number }): Promise<OutboxMessage[]> };
  readonly authorization: AuthorizationService;
  /** The one authorization outcome (success, challenge or forbid) of routes, resource checks and GraphQL alike. */
  readonly evaluator: PolicyEvaluator;
  readonly policies: PolicyProvider<string>;
  readonly clock: Clock;
  /** The schemes that are on: GraphQL's sockets authenticate with the same as requests. */
  readonly schemes: SchemeOptions;
  /**
   * Redis when REDIS_URL is set, else null. Give it to `createEvents({ redis })`: the
   * application's events then share its state (told once in the log, seen by `readiness()`).
   */
  readonly redis: RedisConnection | null;
  /**
   * Whether this instance can serve: the store answers a trivial query and Redis (when set) is
   * connected, each checked within 2 seconds, and the revocation feed read the store within the
   * last 5 seconds (`checks.revocations`). For a readiness route (`GET /health/ready`).
   */
  readiness(): Promise<Readiness>;
  /** The metrics when they are on (their `registry` takes the application's own), else undefined. */
  readonly metrics: GatehouseMetrics | undefined;
}
