/**
 * The `gatehouse` command as a user runs it (docs/reference/cli.md): `node bin/gatehouse.js …` in its own
 * process against `DATABASE_URL`, on each store engine. What a command creates is alone on
 * stdout, a refusal is exit 1 with one line on stderr, bad usage is exit 2. What the commands
 * changed is read back through `users list --json`, or through an in-process instance on the
 * same database (its store, its key ring, tokens it signs).
 */
import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { runCli, type RunResult, useProcessCleanup } from '../helpers/processes.ts';
import { bearer, json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** One line of `users list --json`. */
interface UserSummary {
  id: number;
  email: string;
  userName: string | null;
  roles: string[];
  lockedOut: boolean;
  emailConfirmed: boolean;
}

/** A line of a stack trace (`    at fn (file:1:2)`); a message may say "at least (…)" without being one. */
const STACK_FRAME = /^\s*at .*\(/m;
const API_KEY = /^ghk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}\n$/;
const KID_LINE = /^[A-Za-z0-9_-]+\n$/;
/** A password no policy refuses for being short or common. */
const PASSWORD = 'quiet-lantern-orbit-47';

let counter = 0;
const uniqueEmail = (label: string) => `${label}-${++counter}-${process.pid}@example.com`;

/** Exactly one line on stderr, and no stack trace. */
function expectOneLine(stderr: string): void {
  expect(stderr).toMatch(/^[^\n]+\n$/);
  expect(stderr).not.toMatch(STACK_FRAME);
}

function expectRefused(result: RunResult, reason?: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expectOneLine(result.stderr);
  if (reason) expect(result.stderr).toMatch(reason);
}

function expectUsageError(result: RunResult): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toBe('');
  expect(result.stderr).not.toMatch(STACK_FRAME);
}

/** The payload of a JWT, unverified (the signature is the service's business, not this test's). */
function jwtPart(token: string, index: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[index]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Runs one statement on the database directly, bypassing the store. */
async function rawQuery(databaseUrl: string, statement: string): Promise<unknown[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(statement).all();
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

useProcessCleanup({ afterEachTest: false });

// The engines' suites run side by side (each spawn is mostly one busy core); within one engine the
// tests run in order, since the key-ring tests build on each other's state.
describe.concurrent.each(engines)('the gatehouse command on $engine', (engine) => {
  describe.sequential('against one database', { timeout: 60_000 }, () => {
  let databaseUrl: string;
  /** An instance on the same database, to read what the commands changed. */
  let instance: TestApp;

  const cli = (...args: string[]) => runCli(args, { DATABASE_URL: databaseUrl });
  /** The command with `stdin` piped to it, as `printf … | gatehouse …` does. */
  const piped = (stdin: string, ...args: string[]) => runCli(args, { DATABASE_URL: databaseUrl }, stdin);

  async function listUsers(): Promise<UserSummary[]> {
    const result = await cli('users', 'list', '--json');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    return lines.map((line) => JSON.parse(line) as UserSummary);
  }

  async function listed(email: string): Promise<UserSummary | undefined> {
    return (await listUsers()).find((user) => user.email === email);
  }

  beforeAll(async () => {
    databaseUrl = await engine.createDatabaseUrl();
    instance = await startTestApp(databaseUrl);
  });

  afterAll(async () => {
    await instance?.close();
    await engine.dropAll();
  });

  describe('users add', () => {
    it('prints only the new id, and stores the user with its name, roles, claims, confirmation and 8-character password', async () => {
      const email = uniqueEmail('added');
      const userName = `alice_${counter}`;
      const password = 'Zq7#kP2m';
      const added = await cli(
        'users', 'add', '--email', email, '--password', password, '--name', userName,
        '--role', 'Auditor', '--role', 'Editor', '--claim', 'age=21', '--confirmed',
      );
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/^\d+\n$/);
      const id = Number(added.stdout);

      expect(await listed(email)).toEqual({ id, email, userName, roles: ['Auditor', 'Editor'], lockedOut: false, emailConfirmed: true });
      const stored = await instance.services.users.findByEmail(email);
      expect(stored?.claims).toEqual([{ type: 'age', value: '21' }]);
      const token = await instance.tokenFor(stored!);
      expect(jwtPart(token, 1)).toMatchObject({ sub: String(id), age: '21', role: ['Auditor', 'Editor'], name: userName });

      const signIn = await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email, password } });
      expect(signIn.statusCode).toBe(200);
    });

    it('refuses an e-mail that is already taken, whatever its case, with exit 1, one line on stderr and nothing on stdout', async () => {
      const { user } = await instance.createUser();
      const result = await cli('users', 'add', '--email', user.email.toUpperCase(), '--password', PASSWORD);
      expectRefused(result, /e-mail/i);
      expect((await instance.services.users.list()).filter((other) => other.email.toLowerCase() === user.email)).toHaveLength(1);
    });

    it('refuses a password shorter than 8 characters with exit 1, and creates no user', async () => {
      const email = uniqueEmail('short');
      expectRefused(await cli('users', 'add', '--email', email, '--password', 'Zq7#kP2'), /password/i);
      expect(await instance.services.users.findByEmail(email)).toBeNull();
    });

    it('refuses the reserved claim types sub and role with exit 1, and creates no user', async () => {
      const [subEmail, roleEmail] = [uniqueEmail('sub'), uniqueEmail('role')];
      const [sub, role] = await Promise.all([
        cli('users', 'add', '--email', subEmail, '--password', PASSWORD, '--claim', 'sub=1'),
        cli('users', 'add', '--email', roleEmail, '--password', PASSWORD, '--claim', 'role=x'),
      ]);
      expectRefused(sub, /sub/);
      expectRefused(role, /role/);
      expect(await instance.services.users.findByEmail(subEmail)).toBeNull();
      expect(await instance.services.users.findByEmail(roleEmail)).toBeNull();
    });

    it('takes the password from the first line of standard input with --password-stdin, the rest ignored', async () => {
      const email = uniqueEmail('stdin');
      const password = 'piped lantern -orbit- 47';
      const added = await piped(`${password}\nnot the password\n`, 'users', 'add', '--email', email, '--password-stdin', '--confirmed');
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/^\d+\n$/);
      expect(added.stderr).not.toContain(password);
      const signIn = (candidate: string) => instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email, password: candidate } });
      expect((await signIn(password)).statusCode).toBe(200);
      expect((await signIn(`${password}\nnot the password`)).statusCode).toBe(401);
    });

    it('reads a CRLF line from standard input without its carriage return', async () => {
      const email = uniqueEmail('crlf');
      const added = await piped(`${PASSWORD}\r\n`, 'users', 'add', '--email', email, '--password-stdin', '--confirmed');
      expect(added.code, added.stderr).toBe(0);
      expect((await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email, password: PASSWORD } })).statusCode).toBe(200);
    });

    it('treats --password with --password-stdin, and --password-stdin on empty input, as bad usage (exit 2); a short piped password is refused (exit 1)', async () => {
      const [both, empty, short] = [uniqueEmail('both'), uniqueEmail('empty'), uniqueEmail('short-stdin')];
      const results = await Promise.all([
        piped(`${PASSWORD}\n`, 'users', 'add', '--email', both, '--password', PASSWORD, '--password-stdin'),
        piped('', 'users', 'add', '--email', empty, '--password-stdin'),
        piped('Zq7#kP2\n', 'users', 'add', '--email', short, '--password-stdin'),
      ]);
      expectUsageError(results[0]!);
      expectUsageError(results[1]!);
      expect(results[1]!.stderr).toMatch(/standard input/);
      expectRefused(results[2]!, /password/i);
      for (const email of [both, empty, short]) expect(await instance.services.users.findByEmail(email)).toBeNull();
    });

    it('refuses a role name outside [A-Za-z][A-Za-z0-9_.-]{0,63} with exit 1 and one clear line, and creates no user', async () => {
      const email = uniqueEmail('bad-role');
      const result = await cli('users', 'add', '--email', email, '--password', PASSWORD, '--role', 'Admin ');
      expectRefused(result, /role name/);
      expect(await instance.services.users.findByEmail(email)).toBeNull();
    });

    it('treats a missing --email and an unknown flag as bad usage (exit 2), and creates no user', async () => {
      const email = uniqueEmail('flag');
      const [missing, unknown] = await Promise.all([
        cli('users', 'add', '--password', PASSWORD),
        cli('users', 'add', '--email', email, '--password', PASSWORD, '--admin'),
      ]);
      expectUsageError(missing);
      expect(missing.stderr).toMatch(/--email/);
      expectUsageError(unknown);
      expect(unknown.stderr).toMatch(/--admin/);
      expect(await instance.services.users.findByEmail(email)).toBeNull();
    });
  });

  it('treats an unknown command as bad usage (exit 2)', async () => {
    expectUsageError(await cli('frobnicate'));
  });

  it('treats an unknown action or a missing flag of users roles and users claims as bad usage (exit 2), before looking the user up', async () => {
    const nobody = uniqueEmail('usage');
    const results = await Promise.all([
      cli('users', 'roles', 'grant', '--email', nobody, '--role', 'Auditor'),
      cli('users', 'claims', 'add', '--email', nobody),
    ]);
    for (const result of results) expectUsageError(result);
  });

  it('treats an argument after migrate as bad usage (exit 2) instead of ignoring it', async () => {
    expectUsageError(await cli('migrate', '--dry-run'));
  });

  describe('users roles, claims, unlock and delete', () => {
    it('adds and removes roles, as users list --json then shows', async () => {
      const { user } = await instance.createUser({ roles: ['Reader'] });
      const [added, removed] = await Promise.all([
        cli('users', 'roles', 'add', '--email', user.email, '--role', 'Auditor'),
        cli('users', 'roles', 'remove', '--email', user.email, '--role', 'Reader'),
      ]);
      expect([added.code, removed.code], added.stderr + removed.stderr).toEqual([0, 0]);
      expect([added.stdout, removed.stdout]).toEqual(['', '']);
      expect((await listed(user.email))?.roles).toEqual(['Auditor']);
    });

    it('refuses to add a role name outside the pattern with exit 1; grants SuperAdmin, since the CLI is the operator', async () => {
      const { user } = await instance.createUser();
      const [spaced, superAdmin] = await Promise.all([
        cli('users', 'roles', 'add', '--email', user.email, '--role', 'Super Admin'),
        cli('users', 'roles', 'add', '--email', user.email, '--role', 'SuperAdmin'),
      ]);
      expectRefused(spaced, /role name/);
      expect(superAdmin.code, superAdmin.stderr).toBe(0);
      expect((await listed(user.email))?.roles).toEqual(['SuperAdmin']);
    });

    it('adds and removes claims, as the store and newly signed tokens then show, and refuses a reserved type with exit 1', async () => {
      const { user } = await instance.createUser({ claims: [{ type: 'age', value: '21' }] });
      const [added, removed, reserved] = await Promise.all([
        cli('users', 'claims', 'add', '--email', user.email, '--claim', 'subscription=premium'),
        cli('users', 'claims', 'remove', '--email', user.email, '--claim', 'age=21'),
        cli('users', 'claims', 'add', '--email', user.email, '--claim', 'role=Admin'),
      ]);
      expect([added.code, removed.code], added.stderr + removed.stderr).toEqual([0, 0]);
      expect([added.stdout, removed.stdout]).toEqual(['', '']);
      expectRefused(reserved, /role/);

      const stored = (await instance.services.users.findByEmail(user.email))!;
      expect(stored.claims).toEqual([{ type: 'subscription', value: 'premium' }]);
      expect(stored.roles).toEqual([]);
      const payload = jwtPart(await instance.tokenFor(stored), 1);
      expect(payload).toMatchObject({ subscription: 'premium', role: [] });
      expect(payload).not.toHaveProperty('age');
    });

    it('refuses to change a user that does not exist (unknown e-mail) with exit 1 and one line on stderr', async () => {
      const nobody = uniqueEmail('nobody');
      const results = await Promise.all([
        cli('users', 'roles', 'add', '--email', nobody, '--role', 'Auditor'),
        cli('users', 'delete', '--email', nobody),
      ]);
      for (const result of results) expectRefused(result, new RegExp(nobody.replace(/[.+]/g, '\\$&')));
    });

    it('deletes a user', async () => {
      const { user } = await instance.createUser();
      const other = await instance.createUser();
      const result = await cli('users', 'delete', '--email', user.email);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(await instance.services.users.findById(user.id)).toBeNull();
      expect(await instance.services.users.findById(other.user.id)).not.toBeNull();
    });

    it('is the way back: takes Admin from and deletes the last admin, whom the admin API keeps (409)', async () => {
      const { user } = await instance.createUser({ roles: ['Admin', 'Reader'] });
      const headers = bearer(await instance.tokenFor(user));
      const demote = await instance.app.inject({ method: 'DELETE', url: `/admin/users/${user.id}/roles/Admin`, headers });
      expect(demote.statusCode, 'the last admin').toBe(409);

      const removed = await cli('users', 'roles', 'remove', '--email', user.email, '--role', 'Admin');
      expect(removed.code, removed.stderr).toBe(0);
      expect((await listed(user.email))?.roles).toEqual(['Reader']);
      expect((await cli('users', 'roles', 'add', '--email', user.email, '--role', 'Admin')).code).toBe(0);
      const deleted = await cli('users', 'delete', '--email', user.email);
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(await instance.services.users.findById(user.id)).toBeNull();
    });

    it('unlocks a user locked by an admin, so users list --json shows lockedOut false', async () => {
      const { user } = await instance.createUser();
      await instance.services.users.lock(user.id);
      expect(instance.services.users.isLockedOut((await instance.services.users.findById(user.id))!)).toBe(true);

      const result = await cli('users', 'unlock', '--email', user.email);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(instance.services.users.isLockedOut((await instance.services.users.findById(user.id))!)).toBe(false);
      expect(await listed(user.email)).toMatchObject({ id: user.id, lockedOut: false });
    });
  });

  describe('apikeys', () => {
    it('creates several keys for one client, printing only each key; lists the client; revokes them all', async () => {
      const created = await Promise.all([cli('apikeys', 'create', '--client', 'billing'), cli('apikeys', 'create', '--client', 'billing')]);
      for (const result of created) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(API_KEY);
      }
      const keys = created.map((result) => result.stdout.trim());
      expect(new Set(keys).size).toBe(2);
      for (const key of keys) expect(await instance.services.apiKeys.validate(key)).toEqual({ valid: true, client: 'billing' });
      const events = (await instance.services.store.audit.list({ limit: 10 })).filter((event) => event.type === 'apikey.created');
      expect(events.map((event) => event.detail)).toEqual([0, 1].map(() => ({ client: 'billing', keyId: expect.any(Number), by: 'cli' })));
      for (const key of keys) expect(JSON.stringify(events)).not.toContain(key.split('_')[2]!);

      const [list, unknown] = await Promise.all([cli('apikeys', 'list'), cli('apikeys', 'revoke', '--client', 'nobody-here')]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(/^billing\b/m);
      expectRefused(unknown, /nobody-here/);

      const revoked = await cli('apikeys', 'revoke', '--client', 'billing');
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toBe('');
      // The instance remembers valid keys; the revocation reaches it through the feed (≤ 1 s).
      await instance.services.revocationFeed.read();
      for (const key of keys) expect(await instance.services.apiKeys.validate(key)).toEqual({ valid: false });
    });
  });

  describe('keys', () => {
    async function publishedKids(): Promise<string[]> {
      await instance.services.keyRing.refresh();
      const response = await instance.app.inject({ url: '/.well-known/jwks.json' });
      return json<{ keys: { kid: string }[] }>(response).keys.map((key) => key.kid);
    }

    it('rotate prints a new kid, which becomes the current key while the previous one still verifies', async () => {
      await instance.services.keyRing.refresh();
      const previous = instance.services.keyRing.current.kid;

      const result = await cli('keys', 'rotate');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(KID_LINE);
      const kid = result.stdout.trim();
      expect(kid).not.toBe(previous);

      const kids = await publishedKids();
      expect(instance.services.keyRing.current.kid).toBe(kid);
      expect(kids).toContain(kid);
      expect(kids).toContain(previous);
      const { user } = await instance.createUser();
      expect(jwtPart(await instance.tokenFor(user), 0)).toMatchObject({ kid });
    });

    it('revoke of the current key prints the new kid, and the old key leaves the JWKS and verifies nothing', async () => {
      await instance.services.keyRing.refresh();
      const old = instance.services.keyRing.current.kid;
      const { user } = await instance.createUser();
      const oldToken = await instance.tokenFor(user);
      expect((await instance.services.bearerTokens.validate(oldToken)).valid).toBe(true);

      const result = await cli('keys', 'revoke', '--kid', old);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(KID_LINE);
      const newKid = result.stdout.trim();
      expect(newKid).not.toBe(old);

      const kids = await publishedKids();
      expect(kids).not.toContain(old);
      expect(kids).toContain(newKid);
      expect(instance.services.keyRing.current.kid).toBe(newKid);
      expect((await instance.services.bearerTokens.validate(oldToken)).valid).toBe(false);
    });

    it('revoke of an unknown kid exits 1 and changes nothing', async () => {
      const before = await publishedKids();
      const result = await cli('keys', 'revoke', '--kid', 'nope');
      expectRefused(result, /nope/);
      expect(await publishedKids()).toEqual(before);
    });
  });

  it('migrate creates the tables of a fresh database and exits 0, and exits 0 again when nothing is pending', async () => {
    const fresh = await engine.createDatabaseUrl();
    const first = await runCli(['migrate'], { DATABASE_URL: fresh });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(await rawQuery(fresh, 'select id from users')).toEqual([]);
    const second = await runCli(['migrate'], { DATABASE_URL: fresh });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
  });

  it('--version prints the version of package.json', async () => {
    const result = await cli('--version');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${packageVersion}\n`);
  });
  });
});
