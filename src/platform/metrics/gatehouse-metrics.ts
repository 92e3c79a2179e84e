import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuditEventType } from '../../audit/audit-log.ts';
import type { SignInStep } from '../../identity/sign-in-manager.ts';
import type { SignInResult } from '../../identity/sign-in-result.ts';
import type { Clock } from '../clock.ts';
import { requirePeer } from '../optional-peers.ts';
import type { LiveCount } from './live-count.ts';

/** The hashing threads' queue as the metrics read it: its depth at each scrape, and each task's wait for a thread. */
export interface ObservableHashQueue {
  /** Tasks waiting for a hashing thread. */
  readonly queueDepth: number;
  /** Tells `observer` each task's wait in ms; returns the way to stop. */
  onWait(observer: (ms: number) => void): () => void;
}

/** The revocation feed as the metrics read it: when it last read the store successfully (epoch ms). */
export interface ObservableRevocationFeed {
  readonly lastReadAt: number | undefined;
}

/**
 * prom-client's `Registry` as far as an application needs it: its own metrics join Gatehouse's
 * with `registerMetric(new Counter({ …, registers: [] }))`. Declared here so that Gatehouse's
 * type declarations do not need prom-client where metrics are off.
 */
export interface MetricsRegistry {
  registerMetric(metric: unknown): void;
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** Which step of a sign-in a result answers. */

/** A sign-in result as one label value: ASP.NET's `SignInResult` flags, at most one of them set. */
export type SignInOutcome = 'succeeded' | 'two_factor_required' | 'locked_out' | 'not_allowed' | 'failed';

const SIGN_IN_OUTCOMES: readonly SignInOutcome[] = ['succeeded', 'two_factor_required', 'locked_out', 'not_allowed', 'failed'];
const SIGN_IN_STEPS: readonly SignInStep[] = ['password', 'passkey', 'second_factor'];
/** Security events shown at 0 from the start, so that a rate over them exists before the first one. */
const ALERTED_EVENTS: readonly AuditEventType[] = ['signin.failed', 'lockout', 'refresh.reuse'];

/** The route label of a request no route matched: one value, whatever the path was. */
export const UNMATCHED_ROUTE = 'unmatched';

export function signInOutcome(result: SignInResult): SignInOutcome {
  if (result.succeeded) return 'succeeded';
  if (result.requiresTwoFactor) return 'two_factor_required';
  if (result.isLockedOut) return 'locked_out';
  if (result.isNotAllowed) return 'not_allowed';
  return 'failed';
}

type PromClient = typeof import('prom-client');

/**
 * The service's metrics, in a registry of their own (an application may add its metrics to
 * `registry`): requests by route pattern and status, sign-ins by result, security events by type,
 * the hashing queue, the revocation feed's lag, live GraphQL sockets and subscriptions, store
 * outages, and the process's defaults. Names and labels: docs/operations.md. prom-client (an
 * optional peer) is loaded here, so a service without metrics never loads it.
 */
export class GatehouseMetrics {
  readonly registry: MetricsRegistry;
  /** Live GraphQL WebSockets. */
  readonly graphqlSockets: LiveCount;
  /** Live GraphQL subscriptions, on every socket. */
  readonly graphqlSubscriptions: LiveCount;
  private readonly requests: Histogram<'method' | 'route' | 'status'>;
  private readonly signIns: Counter<'step' | 'result'>;
  private readonly securityEvents: Counter<'type'>;
  private readonly storeUnavailable: Counter;
  private readonly hashWait: Histogram;
  private hashQueue: ObservableHashQueue | undefined;
  private revocationFeed: ObservableRevocationFeed | undefined;
  private readonly startedAt: number;

  constructor(private readonly clock: Clock) {
    const prom = requirePeer<PromClient>('prom-client', 'Metrics (METRICS=true)');
    const registry: Registry = new prom.Registry();
    this.registry = registry;
    const registers = [registry];
    this.startedAt = clock.now();
    prom.collectDefaultMetrics({ register: registry });
    this.requests = new prom.Histogram({
      name: 'gatehouse_http_request_duration_seconds',
      help: 'HTTP requests answered, by method, route pattern (unmatched for none) and status: time from arrival to the answer.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.signIns = new prom.Counter({
      name: 'gatehouse_sign_ins_total',
      help: 'Sign-in steps by step (password, second_factor) and result (succeeded, two_factor_required, locked_out, not_allowed, failed).',
      labelNames: ['step', 'result'],
      registers,
    });
    for (const step of SIGN_IN_STEPS) for (const result of SIGN_IN_OUTCOMES) this.signIns.inc({ step, result }, 0);
    this.securityEvents = new prom.Counter({
      name: 'gatehouse_security_events_total',
      help: 'Security events written to the audit log, by type (lockout, refresh.reuse, …).',
      labelNames: ['type'],
      registers,
    });
    for (const type of ALERTED_EVENTS) this.securityEvents.inc({ type }, 0);
    this.storeUnavailable = new prom.Counter({
      name: 'gatehouse_store_unavailable_total',
      help: 'Requests answered 503 because the store could not be reached.',
      registers,
    });
    this.hashWait = new prom.Histogram({
      name: 'gatehouse_hash_queue_wait_seconds',
      help: 'How long a password hash or verification waited for a hashing thread.',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    const metrics = this;
    new prom.Gauge({
      name: 'gatehouse_hash_queue_depth',
      help: 'Password hashes and verifications waiting for a hashing thread.',
      registers,
      collect() {
        this.set(metrics.hashQueue?.queueDepth ?? 0);
      },
    });
    new prom.Gauge({
      name: 'gatehouse_revocation_feed_lag_seconds',
      help: 'Time since the revocation feed last read the store successfully (since start, before its first read).',
      registers,
      collect() {
        this.set(metrics.revocationFeedLagSeconds());
      },
    });
    this.graphqlSockets = liveGauge(prom, registry, 'gatehouse_graphql_sockets', 'GraphQL WebSockets open.');
    this.graphqlSubscriptions = liveGauge(prom, registry, 'gatehouse_graphql_subscriptions', 'GraphQL subscriptions active, on every socket.');
  }

  /** One answered request; `route` is the route's pattern, or undefined when none matched. */
  requestAnswered(method: string, route: string | undefined, status: number, ms: number): void {
    this.requests.observe({ method, route: route ?? UNMATCHED_ROUTE, status: String(status) }, ms / 1000);
  }

  signInAnswered(step: SignInStep, result: SignInResult): void {
    this.signIns.inc({ step, result: signInOutcome(result) });
  }

  securityEvent(type: AuditEventType): void {
    this.securityEvents.inc({ type });
  }

  storeWasUnavailable(): void {
    this.storeUnavailable.inc();
  }

  /**
   * Reads the queue's depth at each scrape and hears each task's wait. Returns the way to stop
   * hearing: the queue is shared by the apps of one process, and outlives this one.
   */
  watchHashQueue(queue: ObservableHashQueue): () => void {
    this.hashQueue = queue;
    return queue.onWait((ms) => this.hashWait.observe(ms / 1000));
  }

  watchRevocationFeed(feed: ObservableRevocationFeed): void {
    this.revocationFeed = feed;
  }

  /** The text a Prometheus scrape reads, and its media type. */
  async exposition(): Promise<{ readonly contentType: string; readonly text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  private revocationFeedLagSeconds(): number {
    const since = this.revocationFeed?.lastReadAt ?? this.startedAt;
    return Math.max(0, this.clock.now() - since) / 1000;
  }
}

/** A gauge of things that open and close. */
function liveGauge(prom: PromClient, registry: Registry, name: string, help: string): LiveCount {
  const gauge: Gauge = new prom.Gauge({ name, help, registers: [registry] });
  return { opened: () => gauge.inc(), closed: () => gauge.dec() };
}
