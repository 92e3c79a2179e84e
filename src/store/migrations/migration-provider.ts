import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { StoreEngine } from '../ports.ts';
import * as initial from './0001-initial.ts';
import * as refreshTokensAndRevocations from './0002-refresh-tokens-and-revocations.ts';
import * as outbox from './0003-outbox.ts';
import * as sessions from './0004-sessions.ts';
import * as accountCodes from './0005-account-codes.ts';
import * as twoFactor from './0006-two-factor.ts';
import * as externalIds from './0007-external-ids.ts';
import * as posts from './0008-posts.ts';
import * as externalLogins from './0009-external-logins.ts';
import * as twoFactorStepsSpent from './0010-two-factor-steps-spent.ts';
import * as noPendingPasswords from './0011-no-pending-passwords.ts';
import * as sessionMethods from './0012-session-methods.ts';
import * as spentExternalCorrelations from './0013-spent-external-correlations.ts';
import * as whereSignedIn from './0014-where-signed-in.ts';
import * as passkeys from './0015-passkeys.ts';
import * as organizations from './0016-organizations.ts';
import * as userLanguage from './0017-user-language.ts';

/** A migration module: `up` (and `down`) told which engine they run on, for the few SQL differences. */
interface EngineMigration {
  up(db: Kysely<any>, engine: StoreEngine): Promise<void>;
  down?(db: Kysely<any>, engine: StoreEngine): Promise<void>;
}

/**
 * Every migration, by name, in order. Listed in code rather than read from a folder so that the
 * set is the same under tsx, a bundle or a compiled build. Never rename or edit a released one;
 * add the next file (`0002-….ts`) here.
 */
const migrations: Record<string, EngineMigration> = {
  '0001-initial': initial,
  '0002-refresh-tokens-and-revocations': refreshTokensAndRevocations,
  '0003-outbox': outbox,
  '0004-sessions': sessions,
  '0005-account-codes': accountCodes,
  '0006-two-factor': twoFactor,
  '0007-external-ids': externalIds,
  '0008-posts': posts,
  '0009-external-logins': externalLogins,
  '0010-two-factor-steps-spent': twoFactorStepsSpent,
  '0011-no-pending-passwords': noPendingPasswords,
  '0012-session-methods': sessionMethods,
  '0013-spent-external-correlations': spentExternalCorrelations,
  '0014-where-signed-in': whereSignedIn,
  '0015-passkeys': passkeys,
  '0016-organizations': organizations,
  '0017-user-language': userLanguage,
};

/**
 * The migrations for `engine`. `onTables` gives each one the database it writes through: the
 * migrator's own, with the table prefix and schema of the store (`../kysely/table-naming.ts`).
 */
export function migrationProvider(engine: StoreEngine, onTables: (db: Kysely<any>) => Kysely<any> = (db) => db): MigrationProvider {
  return {
    async getMigrations() {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) {
        const { down } = migration;
        bound[name] = {
          up: (db) => migration.up(onTables(db), engine),
          ...(down ? { down: (db) => down(onTables(db), engine) } : {}),
        };
      }
      return bound;
    },
  };
}
