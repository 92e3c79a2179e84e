import { randomBytes } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Sealer } from '../security/crypto/sealer.ts';
import type { KeyRingStore, SigningKeyRecord, UnitOfWork } from '../store/ports.ts';
import { generateSigningKeyRecord, importSigningKey, type SigningKey } from './signing-key.ts';

/** Symmetric secrets the ring keeps beside the signing keys, 32 random bytes each. */
export interface RingSecrets {
  readonly cookie: string;
  readonly antiforgery: string;
  readonly oidcCorrelation: string;
  readonly refreshGrace: string;
}

export interface KeyRingOptions {
  readonly store: KeyRingStore;
  readonly sealer: Sealer;
  readonly clock: Clock;
  /** A superseded key verifies for this long after its successor appears (the access-token lifetime plus skew). */
  readonly retireAfterSeconds: number;
  /** Commits a rotation or revocation with what goes `alongside` it (its audit events). @default runs the work as it is */
  readonly unitOfWork?: Pick<UnitOfWork, 'atomically'>;
}

/** What a revocation did, as its `alongside` work and its caller hear it. */
export interface KeyRevocation {
  /** False when no active key has the kid. */
  readonly revoked: boolean;
  /** The key that became current, when the revoked one was. */
  readonly newKid: string | null;
}

/**
 * The signing keys and secrets in the store. Keys are imported once; `refresh()` picks up
 * rotations and revocations made by other instances or the CLI.
 */
export class KeyRing {
  private keys: readonly SigningKey[] = [];
  private byKid = new Map<string, SigningKey>();
  private jwksJson = '{"keys":[]}';
  private readonly droppedListeners = new Set<(kid: string) => void>();

  private constructor(
    private readonly options: KeyRingOptions,
    readonly secrets: RingSecrets,
  ) {}

  /** Opens the ring, creating it on first start (exactly one of several starting instances does). */
  static async open(options: KeyRingOptions): Promise<{ ring: KeyRing; created: boolean }> {
    const { store, sealer, clock } = options;
    let sealed = await store.loadSecrets();
    let created = false;
    if (sealed === null) {
      const now = clock.now();
      created = await store.createRingIfAbsent({
        secrets: sealer.seal(JSON.stringify(newSecrets())),
        firstKey: await generateSigningKeyRecord(sealer, now),
        createdAt: now,
      });
      sealed = await store.loadSecrets();
      if (sealed === null) throw new Error('The key ring was not created.');
    }
    const ring = new KeyRing(options, JSON.parse(sealer.unseal(sealed)) as RingSecrets);
    await ring.refresh();
    return { ring, created };
  }

  /** The key that signs new tokens: the newest active one. */
  get current(): SigningKey {
    const key = this.keys[0];
    if (!key) throw new Error('The key ring has no active signing key.');
    return key;
  }

  /** A key that may verify a token, by kid; undefined for unknown, revoked or retired keys. */
  verificationKey(kid: string): SigningKey | undefined {
    return this.byKid.get(kid);
  }

  /** The JWKS document, serialised once per change. */
  get jwks(): string {
    return this.jwksJson;
  }

  async refresh(): Promise<void> {
    const records = await this.options.store.listActiveSigningKeys();
    const now = this.options.clock.now();
    const retireAfter = this.options.retireAfterSeconds * 1000;
    const kept = records.filter((record, index) => index === 0 || now - records[index - 1]!.createdAt < retireAfter);
    const known = this.byKid;
    const keys = await Promise.all(
      kept.map((record) => known.get(record.kid) ?? importSigningKey(record, this.options.sealer)),
    );
    this.keys = keys;
    this.byKid = new Map(keys.map((key) => [key.kid, key]));
    this.jwksJson = JSON.stringify({ keys: keys.map((key) => key.publicJwk) });
    for (const kid of known.keys()) if (!this.byKid.has(kid)) for (const listener of this.droppedListeners) listener(kid);
  }

  /**
   * Calls `listener` with each key that stops verifying (revoked or retired), once the ring no
   * longer holds it, whoever re-read the ring; returns the way to stop.
   */
  onDropped(listener: (kid: string) => void): () => void {
    this.droppedListeners.add(listener);
    return () => this.droppedListeners.delete(listener);
  }

  /**
   * Adds a new current key; returns its kid. `alongside` runs in the same transaction (the audit
   * event); the ring re-reads the store only once it has committed, so that nothing is signed
   * with a key that may yet be rolled back.
   */
  async rotate(alongside: (kid: string) => Promise<void> = async () => undefined): Promise<string> {
    const record = await this.newKeyRecord();
    await this.atomically(async () => {
      await this.options.store.addSigningKey(record);
      await alongside(record.kid);
    });
    await this.refresh();
    return record.kid;
  }

  /**
   * Drops a key at once. Revoking the current key first adds a new one, so that signing goes on,
   * in the same transaction; returns the new kid then. Returns false as `revoked` for an unknown
   * kid. `alongside` runs in the transaction too.
   */
  async revoke(kid: string, alongside: (revocation: KeyRevocation) => Promise<void> = async () => undefined): Promise<KeyRevocation> {
    await this.refresh();
    const successor = this.keys[0]?.kid === kid ? await this.newKeyRecord() : null;
    const revocation = await this.atomically(async () => {
      if (successor !== null) await this.options.store.addSigningKey(successor);
      const revoked = await this.options.store.revokeSigningKey(kid, this.options.clock.now());
      const done = { revoked, newKid: successor?.kid ?? null };
      await alongside(done);
      return done;
    });
    await this.refresh();
    return revocation;
  }

  private newKeyRecord(): Promise<SigningKeyRecord> {
    return generateSigningKeyRecord(this.options.sealer, Math.max(this.options.clock.now(), this.current.createdAt + 1));
  }

  private atomically<T>(work: () => Promise<T>): Promise<T> {
    return this.options.unitOfWork ? this.options.unitOfWork.atomically(work) : work();
  }
}

function newSecrets(): RingSecrets {
  const secret = () => randomBytes(32).toString('base64url');
  return { cookie: secret(), antiforgery: secret(), oidcCorrelation: secret(), refreshGrace: secret() };
}
