import {
  type AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  type Challenge,
  concernsCredential,
  type CredentialSources,
  declaredCredentials,
  declaredRevocations,
  type RevocationConcerns,
} from '../security/authentication/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import type { RevocationEvent } from '../store/ports.ts';

/** How many verdicts an instance remembers, every scheme together. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Characters of a credential's end that key the memory. A token's end is its signature and a
 * key's end its secret, both as good as random; hashing 32 characters instead of a whole token
 * (600 and more) is most of what a look-up costs. A hit is confirmed on the whole credential.
 */
const KEY_LENGTH = 32;

type Success = Extract<AuthenticateResult, { kind: 'success' }>;

interface Remembered {
  readonly scheme: string;
  readonly credential: string;
  readonly success: Success;
  readonly subject: string | null;
  readonly concerns: RevocationConcerns;
}

/**
 * The verdicts schemes gave on credentials presented again and again (a client repeats its token
 * or its key), so that a repeated credential costs neither a signature check nor a store read.
 * Only a success is remembered, keyed by its scheme and the credential as presented (the values
 * of the headers and cookies the scheme declares it reads), and only for a scheme that opts in
 * (`remembering`): one whose answer depends on nothing but the credential, the clock and the
 * revocation events it declares (`declaredRevocations`).
 *
 * A verdict stops counting at the credential's end, and at the first revocation event that
 * concerns it as its scheme declares: the events of its user (`ofTheUser`), or any event of the
 * kinds that concern every credential of the scheme (`ofAnySubject`). Each hit is checked against
 * the revocation view being current: while the feed is stale, a remembered credential is not
 * vouched for (`RevocationsStaleError`, a 503 over HTTP), exactly as the scheme would not.
 */
export class CredentialVerdicts {
  private readonly entries = new Map<string, Remembered>();
  /** Bumped by every event, so that a verdict given while one was applied is not remembered. */
  private generation = 0;

  constructor(
    private readonly revocations: RevocationList,
    private readonly clock: Clock,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {
    revocations.onEvent((event) => this.forget(event));
  }

  /** `handler`, answering a credential it accepted before from this memory. */
  remembering(handler: AuthenticationHandler): AuthenticationHandler {
    return new RememberingHandler(handler, this);
  }

  /**
   * The success `handler` gave before on the credential `request` presents, answered now: for a
   * host that decides a known caller without waiting (endpoints/authorize-endpoint.ts).
   * Undefined when `handler` must judge it: a scheme that does not remember, a credential it has
   * not accepted, or one past its end. Throws `RevocationsStaleError` as `recall` does.
   */
  recallFor(handler: AuthenticationHandler, request: AuthenticationRequest): Success | undefined {
    return handler instanceof RememberingHandler ? handler.recall(request) : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The remembered success on `credential` for `scheme`; undefined when its scheme must judge it. */
  recall(scheme: string, credential: string): Success | undefined {
    const key = keyOf(scheme, credential);
    const remembered = this.entries.get(key);
    if (remembered === undefined || remembered.credential !== credential || remembered.scheme !== scheme) return undefined;
    const { expiresAt } = remembered.success;
    if (expiresAt !== undefined && this.clock.now() >= expiresAt) {
      // Its scheme decides past the end (it may allow for clock skew); this memory does not.
      this.entries.delete(key);
      return undefined;
    }
    this.revocations.assertCurrent();
    return remembered.success;
  }

  /** Where remembering starts: a verdict is kept only when no event came while it was given. */
  get mark(): number {
    return this.generation;
  }

  remember(scheme: string, credential: string, success: Success, concerns: RevocationConcerns, mark: number): void {
    if (mark !== this.generation) return;
    if (success.expiresAt !== undefined && this.clock.now() >= success.expiresAt) return;
    const key = keyOf(scheme, credential);
    // Oldest first out when full: a Map iterates in insertion order.
    if (!this.entries.has(key) && this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { scheme, credential, success, subject: success.principal.subject, concerns });
  }

  /**
   * Forgets the verdicts `change` concerns, as their schemes declare: a revocation event, or a
   * change this instance sees before its event arrives (a signing key leaving the ring when it
   * is re-read). A verdict given meanwhile is not remembered.
   */
  forget(change: Pick<RevocationEvent, 'kind' | 'subject'>): void {
    this.generation++;
    for (const [key, remembered] of this.entries) {
      if (concernsCredential(remembered.concerns, change, remembered.subject)) this.entries.delete(key);
    }
  }
}

/** A scheme whose successes are remembered; everything else is its own. */
class RememberingHandler implements AuthenticationHandler {
  readonly scheme: string;
  readonly credentials: CredentialSources;
  readonly revocations: RevocationConcerns;
  private readonly presented: (request: AuthenticationRequest) => string | undefined;

  constructor(
    private readonly handler: AuthenticationHandler,
    private readonly verdicts: CredentialVerdicts,
  ) {
    this.scheme = handler.scheme;
    this.credentials = declaredCredentials(handler);
    this.revocations = declaredRevocations(handler);
    this.presented = presentedCredential(this.credentials);
  }

  /** The remembered success on the credential `request` presents; undefined when the scheme must judge it. */
  recall(request: AuthenticationRequest): Success | undefined {
    const credential = this.presented(request);
    return credential === undefined ? undefined : this.verdicts.recall(this.scheme, credential);
  }

  async authenticate(request: AuthenticationRequest): Promise<AuthenticateResult> {
    const credential = this.presented(request);
    if (credential === undefined) return this.handler.authenticate(request);
    const remembered = this.verdicts.recall(this.scheme, credential);
    if (remembered !== undefined) return remembered;
    const mark = this.verdicts.mark;
    const result = await this.handler.authenticate(request);
    if (result.kind === 'success') this.verdicts.remember(this.scheme, credential, result, this.revocations, mark);
    return result;
  }

  challenge(result: AuthenticateResult, request: AuthenticationRequest): Challenge {
    return this.handler.challenge(result, request);
  }
}

/**
 * The credential a request presents to a scheme: the values of the headers and cookies it
 * declares, or undefined when it presents none, or a header twice (its scheme judges that).
 */
function presentedCredential(sources: CredentialSources): (request: AuthenticationRequest) => string | undefined {
  const headers = (sources.headers ?? []).map((name) => name.toLowerCase());
  const cookies = sources.cookies ?? [];
  if (headers.length === 1 && cookies.length === 0) {
    const [name] = headers as [string];
    return (request) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
  }
  return (request) => {
    const values: (string | undefined)[] = [];
    for (const name of headers) {
      const value = request.headers[name];
      if (Array.isArray(value)) return undefined;
      values.push(value);
    }
    for (const name of cookies) values.push(request.cookies?.[name]);
    return values.some((value) => value !== undefined) ? values.map((value) => value ?? '').join('\n') : undefined;
  };
}

function keyOf(scheme: string, credential: string): string {
  return `${scheme} ${credential.length > KEY_LENGTH ? credential.slice(-KEY_LENGTH) : credential}`;
}
