import {
  type AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  concernsCredential,
  declaredRevocations,
  NO_REVOCATION_CONCERNS,
  type RevocationConcerns,
} from '../security/authentication/index.ts';
import { ClaimsPrincipal } from '../security/claims/index.ts';
import type { RevocationEvent } from '../store/ports.ts';
import { RevocationsStaleError } from '../revocation/revocations-stale-error.ts';

type Success = Extract<AuthenticateResult, { kind: 'success' }>;

/**
 * The credential one socket was opened with — whatever the scheme that accepted it reads: a
 * bearer token in `connection_init` or in the upgrade's `Authorization`, an API key in its
 * `X-Api-Key`, the auth cookie, or an application scheme's own — and the one rule that follows
 * it (docs/reference/graphql.md): the socket holds while that credential would be accepted over
 * HTTP. There is no second judgement here: re-checking runs the same scheme handler on the
 * same presented credential, and its answer decides. The principal and the end are the
 * handler's latest answer, so a cookie socket carries its user's current roles and claims, and
 * its session's current end (a request that slid the session moved it).
 *
 * A re-check is due only when something may have changed: at the credential's end, and at a
 * revocation event that concerns it, as its scheme declares (`declaredRevocations`). Nothing is
 * read in between.
 */
export class SocketCredential {
  /** The check under way, and the one queued behind it (it starts after, so it sees later changes). */
  private checking: Promise<boolean> | undefined;
  private queued: Promise<boolean> | undefined;

  /** The events that concern this credential, as its scheme declares them. */
  private readonly revocations: RevocationConcerns;

  private constructor(
    private readonly handler: AuthenticationHandler | null,
    private readonly request: AuthenticationRequest,
    private latest: Success | null,
  ) {
    this.revocations = handler === null ? NO_REVOCATION_CONCERNS : declaredRevocations(handler);
  }

  /** A socket without credentials: nothing to follow. */
  static anonymous(): SocketCredential {
    return new SocketCredential(null, { headers: {} }, null);
  }

  /**
   * What `handler` makes of the credential in `request`: the credential to follow, an anonymous
   * one when the request carries none for this scheme, or null when it is refused.
   */
  static async open(handler: AuthenticationHandler, request: AuthenticationRequest): Promise<SocketCredential | null> {
    const result = await authenticate(handler, request);
    if (result === null || result.kind === 'fail') return null;
    return result.kind === 'success' ? new SocketCredential(handler, request, result) : SocketCredential.anonymous();
  }

  get principal(): ClaimsPrincipal {
    return this.latest?.principal ?? ANONYMOUS;
  }

  /** When the credential ends unless a re-check finds it extended (epoch ms); undefined: it does not expire. */
  get expiresAt(): number | undefined {
    return this.latest?.expiresAt;
  }

  /** Whether the socket holds a credential at all (one to re-check when revocations go stale). */
  get authenticated(): boolean {
    return this.latest !== null;
  }

  /** Whether `event` may have changed what this credential is worth. */
  concerns(event: RevocationEvent): boolean {
    if (this.latest === null) return false;
    return concernsCredential(this.revocations, event, this.latest.principal.subject);
  }

  /**
   * Re-authenticates through the scheme's handler and takes its answer as the socket's principal
   * and end. True while the credential holds: accepted, and not past its end at `now` (a token is
   * accepted over HTTP a little past `exp`, for clock skew between servers; a socket on the
   * server that checks closes at `exp`). Checks asked for while one runs share one that starts after it.
   */
  recheck(now: () => number): Promise<boolean> {
    if (this.checking) {
      const after = () => {
        this.queued = undefined;
        return this.recheck(now);
      };
      // Whether the running check held, failed or threw, the queued one runs.
      return (this.queued ??= this.checking.then(after, after));
    }
    this.checking = this.authenticateAgain(now).finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** Settles when no re-check is under way, so that an operation runs with the current principal. */
  async settled(): Promise<void> {
    while (this.checking) await (this.queued ?? this.checking).catch(() => undefined);
  }

  private async authenticateAgain(now: () => number): Promise<boolean> {
    if (this.handler === null || this.latest === null) return true;
    const result = await authenticate(this.handler, this.request);
    if (result === null || result.kind !== 'success') return false;
    this.latest = result;
    return result.expiresAt === undefined || now() < result.expiresAt;
  }
}

/**
 * The handler's answer, or null when it can vouch for nothing because this instance's view of
 * revocations is stale: over HTTP a 503, on a socket a refusal (the client reconnects later).
 */
async function authenticate(handler: AuthenticationHandler, request: AuthenticationRequest): Promise<AuthenticateResult | null> {
  try {
    return await handler.authenticate(request);
  } catch (error) {
    if (error instanceof RevocationsStaleError) return null;
    throw error;
  }
}

const ANONYMOUS = ClaimsPrincipal.anonymous();
