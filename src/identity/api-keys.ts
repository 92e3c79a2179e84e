import type { Clock } from '../platform/clock.ts';
import type { Random } from '../platform/random.ts';
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

/**
 * Creates, validates and revokes API keys. It remembers no key: a verdict is remembered at the
 * request's edge (schemes/credential-verdicts.ts), which forgets it at the key's revocation event.
 */
export class ApiKeyService {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  /** A new key for the client; the only time the whole key exists outside the caller. */
  async create(client: string): Promise<string> {
    return (await this.issue(client)).key;
  }

  /** A new key for the client and the id of its stored row: what an audit event may name it by. */
  async issue(client: string): Promise<{ readonly key: string; readonly id: number }> {
    if (!CLIENT_PATTERN.test(client)) {
      throw GatehouseError.validation({ client: [(m) => m.errorApiKeyClientName] });
    }
    const publicId = this.random.bytes(8).toString('hex');
    const secret = this.random.bytes(32).toString('base64url');
    const record = await this.store.create({ client, publicId, secretHash: sha256(secret).toString('hex'), createdAt: this.clock.now() });
    return { key: `ghk_${publicId}_${secret}`, id: record.id };
  }

  /** The key's verdict, from the store. */
  async validate(key: string): Promise<ApiKeyValidation> {
    const match = KEY_PATTERN.exec(key);
    if (!match) return INVALID;
    const record = await this.store.findByPublicId(match[1]!);
    const presented = sha256(match[2]!);
    const stored = Buffer.from(record?.secretHash ?? '', 'hex');
    if (!record || !constantTimeEqual(presented, stored) || record.revokedAt !== null) return INVALID;
    return { valid: true, client: record.client };
  }

  listClients(): Promise<ApiKeyClientSummary[]> {
    return this.store.listClients();
  }

  /** Ends every active key of the client, with their revocation events; how many there were. */
  revokeClient(client: string): Promise<number> {
    return this.store.revokeClient(client, this.clock.now());
  }
}

const INVALID: ApiKeyValidation = Object.freeze({ valid: false });
