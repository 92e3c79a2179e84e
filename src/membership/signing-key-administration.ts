import type { AuditLog } from '../audit/audit-log.ts';
import type { KeyRingStore } from '../store/ports.ts';
import type { KeyRevocation, KeyRing } from '../tokens/key-ring.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/** What revoking a signing key did. */
export type SigningKeyRevocation = KeyRevocation;

/** A signing key not revoked, as the admin console lists it. */
export interface SigningKeySummary {
  readonly kid: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Signs new tokens: the newest key. */
  readonly current: boolean;
  /**
   * Verifies tokens: the current key, and an older one until its successor has been there for
   * an access token's lifetime. A retired key verifies nothing, but stays listed until revoked.
   */
  readonly verifies: boolean;
}

/**
 * The signing keys of access tokens: a rotation adds a new current key (the older ones still
 * verify until their tokens expire); a revocation drops a key at once, and every token it signed
 * is refused by every instance within seconds.
 */
export class SigningKeyAdministration {
  constructor(
    private readonly keyRing: KeyRing,
    private readonly audit: AuditLog,
    private readonly rules: ChangeRules,
    private readonly store: Pick<KeyRingStore, 'listActiveSigningKeys'>,
  ) {}

  /** The keys not revoked, newest first, as the ring reads them now (another instance may have rotated). */
  async list(): Promise<SigningKeySummary[]> {
    await this.keyRing.refresh();
    const records = await this.store.listActiveSigningKeys();
    const current = this.keyRing.current.kid;
    return records.map(({ kid, createdAt }) => ({ kid, createdAt, current: kid === current, verifies: this.keyRing.verificationKey(kid) !== undefined }));
  }

  /**
   * Adds a new current key, committed with its audit event; its kid. Running instances pick it up
   * at their next key-ring refresh.
   */
  rotate(actor: Actor = APPLICATION): Promise<string> {
    return this.keyRing.rotate((kid) => this.recordRotation(kid, actor));
  }

  /**
   * Drops the key; revoking the current key first rotates, so that signing goes on. The key's
   * revocation, the new key and their audit events commit together; the announcement follows.
   */
  async revoke(kid: string, actor: Actor = APPLICATION): Promise<SigningKeyRevocation> {
    const revocation = await this.keyRing.revoke(kid, async ({ revoked, newKid }) => {
      if (newKid) await this.recordRotation(newKid, actor);
      if (revoked) await this.audit.record('key.revoked', { ip: actor.ip ?? null, detail: { kid, by: actor.by } });
    });
    if (revocation.revoked) await this.rules.announceRevocation();
    return revocation;
  }

  private recordRotation(kid: string, actor: Actor): Promise<void> {
    return this.audit.record('key.rotated', { ip: actor.ip ?? null, detail: { kid, by: actor.by } });
  }
}
