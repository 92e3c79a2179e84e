/**
 * `gatehouse users import --aspnet FILE` (docs/reference/membership.md and docs/reference/cli.md), as a user runs it: the CLI on a
 * database, then the service on the same one. Imported users sign in with their old passwords,
 * whose hashes (made here by an independent PBKDF2) are replaced by Argon2id at that sign-in
 * without a security change. Each test has a database of its own, migrated as the first command
 * would leave it (`gatehouse migrate` on a fresh one is cli.test.ts's).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aspNetV2Hash, aspNetV2HashOfLength, aspNetV3Hash, aspNetV3HashShape } from '../helpers/aspnet-hashes.ts';
import { testEngines } from '../helpers/databases.ts';
import { runCli } from '../helpers/processes.ts';
import { json, startTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();
const folder = await mkdtemp(join(tmpdir(), 'gatehouse-import-'));
const PASSWORD = 'an old password from ASP.NET';

describe.each(engines)('users import --aspnet on $engine', (engine) => {
  afterAll(() => engine.dropAll());

  async function importFile(databaseUrl: string, rows: unknown) {
    const file = join(folder, `users-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, typeof rows === 'string' ? rows : JSON.stringify(rows));
    return runCli(['users', 'import', '--aspnet', file], { DATABASE_URL: databaseUrl });
  }

  it('imports users with their roles, notes what it changed or skipped, and they sign in with the old password', async () => {
    const databaseUrl = await engine.createMigratedDatabaseUrl();
    await runCli(['users', 'add', '--email', 'taken@example.com', '--password', 'quiet-lantern-orbit-47'], { DATABASE_URL: databaseUrl });
    const rows = [
      { Id: 'a1b2', UserName: 'grace', Email: 'Grace@example.com', EmailConfirmed: true, PasswordHash: aspNetV3Hash(PASSWORD, 'sha512', 10_000), SecurityStamp: 'X', Roles: ['Admin', 'Editor'] },
      { Id: 'c3d4', UserName: 'linus@example.com', Email: 'linus@example.com', EmailConfirmed: true, PasswordHash: aspNetV2Hash(PASSWORD), SecurityStamp: 'Y', Roles: [] },
      { Id: 'e5f6', UserName: 'has space', Email: 'margaret@example.com', EmailConfirmed: false, PasswordHash: null, SecurityStamp: 'Z', Roles: [] },
      { Id: 'g7h8', UserName: 'taken', Email: 'TAKEN@example.com', EmailConfirmed: true, PasswordHash: aspNetV2Hash(PASSWORD), SecurityStamp: 'W', Roles: [] },
    ];
    const result = await importFile(databaseUrl, rows);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('3\n');
    expect(result.stderr).toMatch(/c3d4.*equal to the e-mail/);
    expect(result.stderr).toMatch(/e5f6.*does not fit/);
    expect(result.stderr).toMatch(/skipped user g7h8/);
    expect(result.stderr).not.toMatch(/AQAAA|AAAA/);

    const listed = (await runCli(['users', 'list', '--json'], { DATABASE_URL: databaseUrl })).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(listed.map((user: { email: string }) => user.email)).toEqual(['taken@example.com', 'Grace@example.com', 'linus@example.com', 'margaret@example.com']);
    expect(listed[1]).toMatchObject({ userName: 'grace', roles: ['Admin', 'Editor'], emailConfirmed: true });
    expect(listed[2]).toMatchObject({ userName: null });

    const instance = await startTestApp(databaseUrl);
    try {
      const users = instance.services.store.users;
      const before = (await users.findByNormalizedEmail('grace@example.com'))!;
      const wrong = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { userName: 'grace', password: 'not it' } });
      expect(wrong.statusCode).toBe(401);
      expect((await users.findById(before.id))!.passwordHash).toBe(before.passwordHash);

      const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { userName: 'grace', password: PASSWORD } });
      expect(signIn.statusCode).toBe(200);
      const after = (await users.findById(before.id))!;
      expect(after.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(after.securityStamp).toBe(before.securityStamp);
      const again = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: 'grace@example.com', password: PASSWORD } });
      expect(again.statusCode).toBe(200);

      const token = await instance.app.inject({ method: 'POST', url: '/auth/token', payload: { email: 'linus@example.com', password: PASSWORD } });
      expect(token.statusCode).toBe(200);
      expect(json<{ accessToken: string }>(token).accessToken).toBeTruthy();
      expect((await users.findByNormalizedEmail('linus@example.com'))!.passwordHash).toMatch(/^\$argon2id\$/);
    } finally {
      await instance.close();
    }
  });

  it('refuses a file it cannot read whole, with one line, and imports nothing', async () => {
    const databaseUrl = await engine.createMigratedDatabaseUrl();
    const good = { Id: '1', UserName: null, Email: 'ok@example.com', EmailConfirmed: true, PasswordHash: null, Roles: [] };
    for (const content of ['not json', { Id: 1 }, [good, { Id: '2', Email: 'not an address' }], [good, { Id: '3', Email: 'x@example.com', PasswordHash: 'plain text' }]]) {
      const result = await importFile(databaseUrl, content);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^gatehouse: nothing imported: .+\n$|^[^\n]*nothing imported[^\n]*\n$/);
    }
    const listed = await runCli(['users', 'list', '--json'], { DATABASE_URL: databaseUrl });
    expect(listed.stdout).toBe('');
  });

  // A hash's header says how much CPU checking it costs; a hostile export makes every wrong guess
  // at its account a CPU weapon. Rows over the caps refuse the file, with the row and the reason.
  it.each([
    ['a V3 hash with 10,000,000 iterations', () => aspNetV3HashShape('sha1', 10_000_000), 'PasswordHash has 10000000 iterations; at most 1000000 are accepted'],
    ['a V3 hash with a 256-byte subkey', () => aspNetV3HashShape('sha1', 100_000, 16, 256), 'PasswordHash has a 256-byte subkey (13 PBKDF2 blocks of HMAC-SHA1); at most 64 bytes are accepted'],
    ['a V2 hash with a 64-byte subkey', () => aspNetV2HashOfLength(1 + 16 + 64), 'PasswordHash is a V2 hash of 81 bytes; V2 is exactly 49 (0x00, a 16-byte salt, a 32-byte subkey)'],
    ['a V3 hash naming an unknown PRF', () => unknownPrf(), 'PasswordHash names PRF 3, which ASP.NET does not have; its PRFs are 0 (HMAC-SHA1), 1 (HMAC-SHA256), 2 (HMAC-SHA512)'],
  ])('refuses %s at import, naming the row and why in one line, and writes nothing', async (_attack, hostileHash, reason) => {
    const databaseUrl = await engine.createMigratedDatabaseUrl();
    const hash = hostileHash();
    const rows = [
      { Id: 'a1', UserName: null, Email: 'fine@example.com', EmailConfirmed: true, PasswordHash: aspNetV2Hash(PASSWORD), Roles: [] },
      { Id: 'b2', UserName: null, Email: 'hostile@example.com', EmailConfirmed: true, PasswordHash: hash, Roles: ['Admin'] },
    ];
    const result = await importFile(databaseUrl, rows);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`gatehouse: nothing imported: row 2: ${reason}\n`);
    expect(result.stderr).not.toContain(hash.slice(0, 16));
    expect((await runCli(['users', 'list', '--json'], { DATABASE_URL: databaseUrl })).stdout).toBe('');
  });

  it('never computes a hash over the caps already in the database (written before them): the right password fails, and each such user is reported at start-up', async () => {
    const databaseUrl = await engine.createMigratedDatabaseUrl();
    const hostile = aspNetV3HashShape('sha1', 10_000_000, 16, 256);
    // Right for PASSWORD: only a computed PBKDF2 could let it sign in.
    const longSubkey = aspNetV3Hash(PASSWORD, 'sha256', 1000, 16, 65);
    const first = await startTestApp(databaseUrl);
    let ids: number[];
    try {
      expect(first.logs.join('')).not.toMatch(/password hash/);
      // As an older version's import could have written them.
      const written = await first.services.store.users.createMany(
        [hostile, longSubkey, aspNetV2Hash(PASSWORD)].map((passwordHash, index) => ({
          email: `old${index}@example.com`,
          normalizedEmail: `old${index}@example.com`,
          userName: null,
          normalizedUserName: null,
          passwordHash,
          emailConfirmed: true,
          createdAt: Date.now(),
        })),
      );
      ids = written.map((user) => user.id);
    } finally {
      await first.close();
    }

    const instance = await startTestApp(databaseUrl);
    try {
      const warnings = instance.logs.map((line) => JSON.parse(line) as { level: number; msg: string; userId?: number; refused?: number }).filter((line) => line.level === 40);
      const aboutUsers = warnings.filter((line) => line.userId !== undefined);
      expect(aboutUsers.map((line) => line.userId)).toEqual([ids[0], ids[1]]);
      expect(aboutUsers[0]!.msg).toBe(
        `user ${ids[0]}: the stored password hash has 10000000 iterations; at most 1000000 are accepted; it is never checked, so this user cannot sign in with a password until it is reset`,
      );
      expect(aboutUsers[1]!.msg).toMatch(new RegExp(`^user ${ids[1]}: the stored password hash has a 65-byte subkey .*until it is reset$`));
      expect(warnings.filter((line) => line.refused !== undefined)).toEqual([expect.objectContaining({ refused: 2, msg: expect.stringMatching(/^2 users have a stored password hash that is not accepted/) })]);
      for (const hash of [hostile, longSubkey]) expect(instance.logs.join('')).not.toContain(hash.slice(0, 16));

      for (const [index, expected] of [[0, 401], [1, 401], [2, 200]] as const) {
        const signIn = await instance.app.inject({ method: 'POST', url: '/account/login', payload: { email: `old${index}@example.com`, password: PASSWORD } });
        expect(signIn.statusCode, `old${index}`).toBe(expected);
      }
      // Refused, not upgraded: the hash stays until the password is reset.
      expect((await instance.services.store.users.findById(ids[1]!))!.passwordHash).toBe(longSubkey);
    } finally {
      await instance.close();
    }
  });
});

/** A V3 hash whose PRF field is 3: ASP.NET has 0 to 2. */
function unknownPrf(): string {
  const bytes = Buffer.from(aspNetV3HashShape('sha256', 10_000), 'base64');
  bytes.writeUInt32BE(3, 1);
  return bytes.toString('base64');
}
