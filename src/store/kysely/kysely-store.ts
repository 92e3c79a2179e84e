import { KyselyAccountCodeStore } from './account-code-store.ts';
import { Kysely, sql, type Dialect, type LogEvent } from 'kysely';
import type { Clock } from '../../platform/clock.ts';
import type { ApplicationMigrations } from '../application-database.ts';
import type { DataVersion, Store, StoreEngine, UnitOfWork } from '../ports.ts';
import { applicationDatabase } from './application-database.ts';
import { KyselyApiKeyStore } from './api-key-store.ts';
import { KyselyAuditStore } from './audit-store.ts';
import type { Database } from './database.ts';
import { KyselyKeyRingStore } from './key-ring-store.ts';
import { migrateToLatest } from './migrate.ts';
import { KyselyOrganizationStore } from './organization-store.ts';
import { KyselyOutboxStore } from './outbox-store.ts';
import { atPortBoundary } from './port-boundary.ts';
import { KyselyRefreshTokenStore } from './refresh-token-store.ts';
import { KyselyRevocationStore } from './revocation-store.ts';
import { KyselySessionStore } from './session-store.ts';
import { KyselyUserSessionStore } from './user-session-store.ts';
import type { StoreContext } from './store-context.ts';
import type { TableNaming } from './table-naming.ts';
import { AmbientTransactions } from './ambient-transaction.ts';
import { toStoreError } from './store-errors.ts';
import { KyselyTwoFactorStore } from './two-factor-store.ts';
import { KyselyExternalLoginStore } from './external-login-store.ts';
import { KyselyPasskeyStore } from './passkey-store.ts';
import { KyselyUserStore } from './user-store.ts';

export interface KyselyStoreOptions {
  readonly clock: Clock;
  /** Kysely's query log: every query and error, with its duration. */
  readonly log?: (event: LogEvent) => void;
  /** How the engine tells that data changed, where it can without a round trip. */
  readonly dataVersion?: DataVersion;
  /** The table prefix and schema; every query and migration goes through them. */
  readonly naming: TableNaming;
  /** The application's own migrations, run by `migrate()` after Gatehouse's. */
  readonly migrations?: ApplicationMigrations | undefined;
  /** Runs a migration without the engine's query timeout, where it has one. @default runs it as it is */
  readonly withoutQueryTimeout?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Every port over one Kysely instance, each behind the error-translating port boundary. */
export function createKyselyStore(engine: StoreEngine, dialect: Dialect, options: KyselyStoreOptions): Store {
  const { naming } = options;
  const connections = new Kysely<Database>({ dialect, ...(options.log ? { log: options.log } : {}) });
  const unbounded = options.withoutQueryTimeout ?? ((work) => work());
  const db = naming.on(connections);
  const atBoundary = <Port extends object>(port: Port) => atPortBoundary(port, naming.tablePrefix);
  const transactions = new AmbientTransactions(db, engine);
  const context: StoreContext = {
    get db() {
      return transactions.db;
    },
    engine,
    clock: options.clock,
    transaction: (work) => transactions.transaction(work),
  };
  return atBoundary<Store>({
    engine,
    unitOfWork: unitOfWorkAtBoundary(transactions, naming.tablePrefix),
    users: atBoundary(new KyselyUserStore(context)),
    apiKeys: atBoundary(new KyselyApiKeyStore(context)),
    keyRing: atBoundary(new KyselyKeyRingStore(context)),
    audit: atBoundary(new KyselyAuditStore(context)),
    refreshTokens: atBoundary(new KyselyRefreshTokenStore(context)),
    revocations: atBoundary(new KyselyRevocationStore(context)),
    accountCodes: atBoundary(new KyselyAccountCodeStore(context)),
    outbox: atBoundary(new KyselyOutboxStore(context)),
    sessions: atBoundary(new KyselySessionStore(context)),
    userSessions: atBoundary(new KyselyUserSessionStore(context)),
    twoFactor: atBoundary(new KyselyTwoFactorStore(context)),
    externalLogins: atBoundary(new KyselyExternalLoginStore(context)),
    passkeys: atBoundary(new KyselyPasskeyStore(context)),
    organizations: atBoundary(new KyselyOrganizationStore(context)),
    database: applicationDatabase(connections, engine, naming),
    dataVersion: options.dataVersion ?? null,
    // A migration may take its time, or wait for another process's: no query timeout there.
    migrate: () => unbounded(() => migrateToLatest(db, engine, naming, options.migrations)),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  });
}

/** The unit of work with its own errors (BEGIN, COMMIT) translated as the ports' are; `afterCommit` stays synchronous. */
function unitOfWorkAtBoundary(transactions: UnitOfWork, tablePrefix: string): UnitOfWork {
  return {
    atomically: async (work) => {
      try {
        return await transactions.atomically(work);
      } catch (error) {
        throw toStoreError(error, tablePrefix);
      }
    },
    afterCommit: (effect) => transactions.afterCommit(effect),
  };
}
