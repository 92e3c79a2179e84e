import { StoreConflictError, StoreUnavailableError } from '../ports.ts';

type ConflictField = StoreConflictError['field'];

/**
 * Unique constraints the ports report as conflicts. PostgreSQL names the constraint (the names
 * given in the migrations); SQLite says "UNIQUE constraint failed: table.column[, …]". Under a
 * table prefix both carry it (`gh_users_normalized_email_unique`, `gh_users.normalized_email`).
 * Constraints missing here (e.g. a duplicate claim pair inside one `create`) are caller bugs
 * and surface as the driver's error.
 */
const conflicts: ReadonlyArray<{ constraint: string; table: string; columns: readonly string[]; field: ConflictField }> = [
  { constraint: 'users_normalized_email_unique', table: 'users', columns: ['normalized_email'], field: 'email' },
  { constraint: 'users_normalized_user_name_unique', table: 'users', columns: ['normalized_user_name'], field: 'userName' },
  // The ports have no `publicId` field; a key's public id is what identifies the client's key.
  { constraint: 'api_keys_public_id_unique', table: 'api_keys', columns: ['public_id'], field: 'client' },
  { constraint: 'signing_keys_pkey', table: 'signing_keys', columns: ['kid'], field: 'kid' },
  { constraint: 'roles_name_unique', table: 'roles', columns: ['name'], field: 'name' },
  { constraint: 'external_logins_provider_subject_unique', table: 'external_logins', columns: ['provider', 'subject'], field: 'login' },
  { constraint: 'external_logins_user_provider_unique', table: 'external_logins', columns: ['user_id', 'provider'], field: 'login' },
  { constraint: 'passkeys_credential_id_unique', table: 'passkeys', columns: ['credential_id'], field: 'credential' },
  // A constraint on a table Gatehouse made, a unique index on one it adopted: the same name either way.
  { constraint: 'organizations_slug_unique', table: 'organizations', columns: ['slug'], field: 'slug' },
];

/** Node socket errors: the server is down, unreachable or went away. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * PostgreSQL SQLSTATEs about the connection rather than the query: class 08 (connection
 * exception), shutdowns (57P01–57P03), too many connections, and a database or login that the
 * server refuses (the service cannot work, whatever the request).
 */
const postgresUnavailableStates = new Set(['57P01', '57P02', '57P03', '53300', '3D000', '28000', '28P01']);

/** node-postgres reports some connection failures by message only (a query unanswered past its timeout among them). */
const postgresUnavailableMessage =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i;

/** SQLite result codes meaning the file cannot be used now (locked past busy_timeout, unreadable, full). */
const sqliteUnavailablePrefixes = [
  'SQLITE_CANTOPEN',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT',
  'SQLITE_FULL',
  'SQLITE_PROTOCOL',
];

/**
 * The error a port should throw for a driver error: `StoreConflictError` for a known unique
 * constraint, `StoreUnavailableError` for a connection-level failure, the error itself otherwise.
 * `tablePrefix` is the store's (see `table-naming.ts`).
 */
export function toStoreError(error: unknown, tablePrefix = ''): unknown {
  if (error instanceof StoreConflictError || error instanceof StoreUnavailableError) return error;
  const field = conflictField(error, tablePrefix);
  if (field !== null) return new StoreConflictError(field);
  if (isUnavailable(error)) return new StoreUnavailableError({ cause: error });
  return error;
}

function conflictField(error: unknown, tablePrefix: string): ConflictField | null {
  const { code, constraint, message } = fieldsOf(error);
  if (code === '23505' && constraint !== undefined) {
    return conflicts.find((entry) => tablePrefix + entry.constraint === constraint)?.field ?? null;
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const columns = /constraint failed: (.+)$/.exec(message ?? '')?.[1];
    const named = (entry: (typeof conflicts)[number]) => entry.columns.map((column) => `${tablePrefix}${entry.table}.${column}`).join(', ');
    return conflicts.find((entry) => named(entry) === columns)?.field ?? null;
  }
  return null;
}

/**
 * A connection-level failure, whether a port translated it already or a query of the
 * application's own (through `Store.database`, or a connection of its own) met it raw.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof StoreUnavailableError || isUnavailable(error);
}

function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, message } = fieldsOf(error);
  if (code !== undefined) {
    if (networkCodes.has(code)) return true;
    if (code.startsWith('08') || postgresUnavailableStates.has(code)) return true;
    if (sqliteUnavailablePrefixes.some((prefix) => code.startsWith(prefix))) return true;
  }
  if (message !== undefined && postgresUnavailableMessage.test(message)) return true;
  // Node reports a refused dual-stack connect as an AggregateError of one error per address.
  const nested = [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])];
  return nested.some((inner) => isUnavailable(inner, depth + 1));
}

function fieldsOf(error: unknown): { code?: string; constraint?: string; message?: string } {
  if (typeof error !== 'object' || error === null) return {};
  const { code, constraint, message } = error as Record<string, unknown>;
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof constraint === 'string' ? { constraint } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}
