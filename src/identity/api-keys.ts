import type { Clock } from '../platform/clock.ts';
import type { Random } from '../platform/random.ts';
import type { RevocationList } from '../revocation/revocation-list.ts';
import type { MaybePromise } from '../security/maybe-async.ts';
import { constantTimeEqual } from '../security/crypto/constant-time.ts';
import { sha256 } from '../security/crypto/digest.ts';
import { GatehouseError } from '../security/errors.ts';
import type { ApiKeyClientSummary, ApiKeyStore } from '../store/ports.ts';

/**
 * API keys look like `ghk_<public id: 16 hex>_<secret: 43 base64url chars = 256 bits>`.
 * The public id finds the row; only SHA-256 of the secret is stored, compared in constant time.
 */
const KEY_PATTERN = /^ghk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const CLIENT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type ApiKeyValidation = { readonly valid: true; readonly client: string } | { readonly valid: false };

interface CachedKey {
  readonly client: string;
  readonly publicId: string;
  readonly validation: ApiKeyValidation;
}

/** How many valid keys an instance remembers. */
const CACHE_CAPACITY = 10_000;

/**
 * Creates, validates and revokes API keys. Valid keys are remembered (keyed by the whole key) so
 * that a client repeating its key costs no store round trip; a revocation event, from this
 * instance, another one or the CLI, drops them from memory at once.
 */
export class ApiKeyService {
  private readonly cache = new Map<string, CachedKey>();
  /** Bumped by every revocation, so a look-up that raced one is not remembered. */
  private generation = 0;

  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly revocations: RevocationList,
  ) {
    revocations.onEvent((event) => {
      if (event.kind !== 'api-key') return;
      this.generation++;
      for (const [key, entry] of this.cache) if (entry.publicId === event.subject) this.cache.delete(key);
    });
  }

  /** A new key for the client; the only time the whole key exists outside the caller. */
  async create(client: string): Promise<string> {
    if (!CLIENT_PATTERN.test(client)) {
      throw GatehouseError.validation({ client: ['A client name has 1 to 64 letters, digits, dots, underscores or hyphens.'] });
    }
    const publicId = this.random.bytes(8).toString('hex');
    const secret = this.random.bytes(32).toString('base64url');
    await this.store.create({ client, publicId, secretHash: sha256(secret).toString('hex'), createdAt: this.clock.now() });
    return `ghk_${publicId}_${secret}`;
  }

  /**
   * At once for a remembered key; after a store look-up otherwise. A remembered key is vouched
   * for from memory: while the revocation feed is stale it throws `RevocationsStaleError` (the key
   * may have been revoked elsewhere); a look-up reads the store itself.
   */
  validate(key: string): MaybePromise<ApiKeyValidation> {
    const cached = this.cache.get(key);
    if (cached) {
      this.revocations.assertCurrent();
      return cached.validation;
    }
    return this.lookUp(key);
  }

  private async lookUp(key: string): Promise<ApiKeyValidation> {
    const match = KEY_PATTERN.exec(key);
    if (!match) return INVALID;
    const generation = this.generation;
    const record = await this.store.findByPublicId(match[1]!);
    const presented = sha256(match[2]!);
    const stored = Buffer.from(record?.secretHash ?? '', 'hex');
    if (!record || !constantTimeEqual(presented, stored) || record.revokedAt !== null) return INVALID;
    const validation: ApiKeyValidation = Object.freeze({ valid: true, client: record.client });
    if (generation === this.generation) this.remember(key, { client: record.client, publicId: record.publicId, validation });
    return validation;
  }

  private remember(key: string, entry: CachedKey): void {
    if (this.cache.size >= CACHE_CAPACITY) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, entry);
  }

  listClients(): Promise<ApiKeyClientSummary[]> {
    return this.store.listClients();
  }

  /** Ends every active key of the client, with their revocation events; how many there were. */
  async revokeClient(client: string): Promise<number> {
    const count = await this.store.revokeClient(client, this.clock.now());
    // This instance forgets them at once; the others when the revocation event reaches them.
    this.generation++;
    for (const [key, entry] of this.cache) if (entry.client === client) this.cache.delete(key);
    return count;
  }
}

const INVALID: ApiKeyValidation = Object.freeze({ valid: false });
