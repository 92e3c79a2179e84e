import { createLocalJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import { IssuerMetadataError } from './openid-configuration.ts';

export interface RemoteKeySetOptions {
  /** How long a fetched key set is used before it is fetched again. */
  readonly maxAgeMs: number;
  /** After a fetch (whatever came of it), an unknown `kid` fetches again only once this has passed. */
  readonly cooldownMs: number;
  /** How long one fetch may take. */
  readonly timeoutMs: number;
}

/** The wait after a first failed fetch; it doubles with each failure in a row, up to the cooldown. */
const FIRST_RETRY_MS = 1_000;

/**
 * An issuer's JWKS, fetched at most one at a time whatever asks for it: the first use, keys past
 * `maxAgeMs`, a token with a `kid` the set lacks. The issuer is never flooded, whatever it answers:
 *
 * - every caller that arrives while a fetch runs waits for that one fetch;
 * - after a failed fetch (an error status, a timeout, no connection, not a key set) nothing is
 *   fetched before a backoff has passed (1 s, doubling up to the cooldown): meanwhile the last
 *   key set fetched stays in use, or, before any, tokens fail at once with the fetch's error;
 * - an unknown `kid` fetches again only `cooldownMs` after the last fetch, so made-up `kid`s
 *   (or a key set that lacks them) cost one fetch per cooldown.
 *
 * jose's own remote key set shares a fetch under way, but forgets a failed one: each token after
 * it fetched again, one fetch per token while the issuer failed.
 */
export class RemoteKeySet {
  private local: { readonly getKey: JWTVerifyGetKey; readonly fetchedAt: number } | undefined;
  private fetching: Promise<void> | undefined;
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private failure: { readonly error: IssuerMetadataError; readonly inARow: number; readonly retryAt: number } | undefined;

  constructor(
    readonly url: URL,
    private readonly options: RemoteKeySetOptions,
  ) {}

  /** The key for a token's header, as jose's `jwtVerify` asks for it. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (this.local === undefined || Date.now() - this.local.fetchedAt >= this.options.maxAgeMs) await this.refresh();
    const local = this.local;
    if (local === undefined) throw this.failure!.error;
    try {
      return await local.getKey(header, token);
    } catch (error) {
      if (!(error instanceof joseErrors.JWKSNoMatchingKey) || Date.now() - this.lastFetchAt < this.options.cooldownMs) throw error;
      await this.refresh();
      return (this.local ?? local).getKey(header, token);
    }
  };

  /** Fetches now, unless a fetch runs (then waits for it) or a backoff holds; throws when the set could not be had. */
  async load(): Promise<void> {
    await this.refresh();
    if (this.failure !== undefined) throw this.failure.error;
  }

  /** One fetch at a time, none within a backoff; never rejects (the outcome is in `local` and `failure`). */
  private refresh(): Promise<void> {
    if (this.fetching !== undefined) return this.fetching;
    if (this.failure !== undefined && Date.now() < this.failure.retryAt) return Promise.resolve();
    this.lastFetchAt = Date.now();
    this.fetching = this.fetchOnce().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  private async fetchOnce(): Promise<void> {
    try {
      const getKey = createLocalJWKSet(await this.fetchKeySet());
      this.local = { getKey, fetchedAt: Date.now() };
      this.failure = undefined;
    } catch (cause) {
      const inARow = (this.failure?.inARow ?? 0) + 1;
      const wait = Math.min(FIRST_RETRY_MS * 2 ** (inARow - 1), Math.max(this.options.cooldownMs, FIRST_RETRY_MS));
      const error = new IssuerMetadataError(`Could not fetch the key set ${this.url.href}.`, { cause });
      this.failure = { error, inARow, retryAt: Date.now() + wait };
    }
  }

  private async fetchKeySet(): Promise<Parameters<typeof createLocalJWKSet>[0]> {
    // No redirects: the keys must come from the address configured or discovered.
    const response = await fetch(this.url, {
      redirect: 'manual',
      headers: { accept: 'application/jwk-set+json, application/json' },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`${this.url.href} answered ${response.status}, not 200.`);
    }
    return (await response.json()) as Parameters<typeof createLocalJWKSet>[0];
  }
}
