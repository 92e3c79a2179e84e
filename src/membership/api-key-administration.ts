import type { AuditLog } from '../audit/audit-log.ts';
import type { ApiKeyService } from '../identity/api-keys.ts';
import type { ApiKeyClientSummary, UnitOfWork } from '../store/ports.ts';
import { type Actor, APPLICATION } from './actor.ts';
import type { ChangeRules } from './change-rules.ts';

/**
 * The API keys of the `ApiKey` scheme, by client: created with the audit event (one transaction),
 * listed, and revoked with the audit event and the revocation that makes every instance refuse
 * them within seconds.
 */
export class ApiKeyAdministration {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly audit: AuditLog,
    private readonly rules: ChangeRules,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * A new key for the client (`GH_VALIDATION` for a name outside 1–64 letters, digits, dots,
   * underscores or hyphens): the only time the whole key exists; only its hash is stored. Its
   * audit event, in the same transaction, names the key by its row's id, never by the key.
   */
  create(client: string, actor: Actor = APPLICATION): Promise<string> {
    return this.unitOfWork.atomically(async () => {
      const { key, id } = await this.keys.issue(client);
      await this.audit.record('apikey.created', { ip: actor.ip ?? null, detail: { client, keyId: id, by: actor.by } });
      return key;
    });
  }

  /** The clients with at least one key, by name, with how many of their keys are active. */
  list(): Promise<ApiKeyClientSummary[]> {
    return this.keys.listClients();
  }

  /** Revokes every active key of the client, with its audit event in the same transaction; how many there were. */
  async revoke(client: string, actor: Actor = APPLICATION): Promise<number> {
    const count = await this.unitOfWork.atomically(async () => {
      const revoked = await this.keys.revokeClient(client);
      if (revoked > 0) await this.audit.record('apikey.revoked', { ip: actor.ip ?? null, detail: { client, keys: revoked, by: actor.by } });
      return revoked;
    });
    if (count > 0) await this.rules.announceRevocation();
    return count;
  }
}
