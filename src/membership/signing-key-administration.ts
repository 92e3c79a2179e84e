import type { AuditLog } from '../audit/audit-log.ts';
import type { KeyRing } from '../tokens/key-ring.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/** What revoking a signing key did. */
export interface SigningKeyRevocation {
  /** False when no active key has the kid. */
  readonly revoked: boolean;
  /** The key that became current, when the revoked one was. */
  readonly newKid: string | null;
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
  ) {}

  /** Adds a new current key; its kid. Running instances pick it up at their next key-ring refresh. */
  async rotate(actor: Actor = APPLICATION): Promise<string> {
    const kid = await this.keyRing.rotate();
    await this.recordRotation(kid, actor);
    return kid;
  }

  /** Drops the key; revoking the current key first rotates, so that signing goes on. */
  async revoke(kid: string, actor: Actor = APPLICATION): Promise<SigningKeyRevocation> {
    const { revoked, newKid } = await this.keyRing.revoke(kid);
    if (newKid) await this.recordRotation(newKid, actor);
    if (revoked) {
      await this.audit.record('key.revoked', { ip: actor.ip ?? null, detail: { kid, by: actor.by } });
      await this.rules.announceRevocation();
    }
    return { revoked, newKid };
  }

  private recordRotation(kid: string, actor: Actor): Promise<void> {
    return this.audit.record('key.rotated', { ip: actor.ip ?? null, detail: { kid, by: actor.by } });
  }
}
