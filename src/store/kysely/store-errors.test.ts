import { describe, expect, it } from 'vitest';
import { StoreConflictError, StoreUnavailableError } from '../ports.ts';
import { toStoreError } from './store-errors.ts';

/** Driver errors as the drivers shape them: plain objects with the properties that matter. */
function driverError(properties: Record<string, unknown>, message = 'driver error'): Error {
  return Object.assign(new Error(message), properties);
}

describe('toStoreError', () => {
  it.each([
    ['email', driverError({ code: '23505', constraint: 'users_normalized_email_unique' })],
    ['userName', driverError({ code: '23505', constraint: 'users_normalized_user_name_unique' })],
    ['kid', driverError({ code: '23505', constraint: 'signing_keys_pkey' })],
    ['email', driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'UNIQUE constraint failed: users.normalized_email')],
    ['kid', driverError({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }, 'UNIQUE constraint failed: signing_keys.kid')],
    ['client', driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'UNIQUE constraint failed: api_keys.public_id')],
  ])('turns a unique violation into StoreConflictError on "%s"', (field, error) => {
    const translated = toStoreError(error);
    expect(translated).toBeInstanceOf(StoreConflictError);
    expect(translated).toMatchObject({ field });
  });

  it.each([
    ['a refused connection', driverError({ code: 'ECONNREFUSED' })],
    ['a refused dual-stack connection', Object.assign(new AggregateError([driverError({ code: 'ECONNREFUSED' })]), {})],
    ['a PostgreSQL shutdown', driverError({ code: '57P01' }, 'terminating connection due to administrator command')],
    ['a PostgreSQL connection exception', driverError({ code: '08006' })],
    ['a connection ended mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['an unopenable SQLite file', driverError({ code: 'SQLITE_CANTOPEN' })],
    ['a SQLite lock held past busy_timeout', driverError({ code: 'SQLITE_BUSY' }, 'database is locked')],
  ])('turns %s into StoreUnavailableError that keeps the cause', (_, error) => {
    const translated = toStoreError(error);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as StoreUnavailableError).cause).toBe(error);
  });

  it.each([
    ['an unmapped unique constraint', driverError({ code: '23505', constraint: 'user_claims_user_type_value_unique' })],
    ['an unmapped SQLite unique constraint', driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'UNIQUE constraint failed: user_claims.user_id, user_claims.type, user_claims.value')],
    ['a foreign key violation', driverError({ code: '23503' })],
    ['a syntax error', driverError({ code: '42601' })],
    ['a bug', new TypeError('x is undefined')],
  ])('leaves %s as it is', (_, error) => {
    expect(toStoreError(error)).toBe(error);
  });

  it.each([
    ['email', driverError({ code: '23505', constraint: 'gh_users_normalized_email_unique' })],
    ['login', driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'UNIQUE constraint failed: gh_external_logins.provider, gh_external_logins.subject')],
  ])('reads a conflict on "%s" under the store\'s table prefix', (field, error) => {
    expect(toStoreError(error, 'gh_')).toMatchObject({ field });
  });

  it.each([
    ['a constraint without the prefix', driverError({ code: '23505', constraint: 'users_normalized_email_unique' })],
    ['an application table of the same name', driverError({ code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'UNIQUE constraint failed: users.normalized_email')],
  ])('under a table prefix, leaves %s as it is', (_, error) => {
    expect(toStoreError(error, 'gh_')).toBe(error);
  });

  it('passes store errors through unchanged', () => {
    const conflict = new StoreConflictError('email');
    const unavailable = new StoreUnavailableError();
    expect(toStoreError(conflict)).toBe(conflict);
    expect(toStoreError(unavailable)).toBe(unavailable);
  });
});
