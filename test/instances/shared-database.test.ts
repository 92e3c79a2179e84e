/**
 * Several instances on one database (docs/reference/tokens.md and docs/reference/persistence.md): they agree on one key ring created
 * under a unique constraint, accept each other's tokens, and pick up rotations and revocations
 * made by the CLI (another process) within 5 seconds (each instance re-reads the ring every 2 s).
 * With KEYRING_SECRET the ring's secrets are stored encrypted, and an instance with another secret
 * or none refuses to start. On each store engine; real processes over real sockets where the
 * behaviour is between processes.
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import {
  freePort,
  runCli,
  type RunningService,
  spawnService,
  startService,
  useProcessCleanup,
  waitUntil,
} from '../helpers/processes.ts';
import { startTestApp } from '../helpers/test-app.ts';

const engines = await testEngines();

/** docs/reference/tokens.md: a change reaches every instance within 5 seconds. */
const PROPAGATION_MS = 5_000;
/** Every instance of one deployment has the same public URL (the token issuer). */
const PUBLIC_URL = 'http://gatehouse.test';
const STACK_FRAME = /^\s*at .*\(/m;

interface Jwks {
  keys: { kid: string }[];
}

/** Runs one statement on the database directly, bypassing the store. */
async function rawQuery<Row>(databaseUrl: string, statement: string): Promise<Row[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new BetterSqlite3(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(statement).all() as Row[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(statement)).rows as Row[];
  } finally {
    await client.end();
  }
}

function kidOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
}

async function jwksOf(service: RunningService): Promise<{ text: string; kids: string[] }> {
  const response = await fetch(`${service.url}/.well-known/jwks.json`);
  if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`);
  const text = await response.text();
  return { text, kids: (JSON.parse(text) as Jwks).keys.map((key) => key.kid) };
}

async function signIn(service: RunningService, email: string, password: string): Promise<string> {
  const response = await fetch(`${service.url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`POST /auth/token answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

async function meStatus(service: RunningService, token: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${service.url}/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.text() };
}

useProcessCleanup({ afterEachTest: false });

// The engines' suites run side by side; within one engine the steps run in order.
describe.concurrent.each(engines)('instances sharing one $engine database', (engine) => {
  afterAll(() => engine.dropAll());

  describe.sequential('in order', { timeout: 60_000 }, () => {
    it('three in-process instances starting together on a fresh database create one key ring and publish the same JWKS', async ({ expect }) => {
      const databaseUrl = await engine.createDatabaseUrl();
      const instances = await Promise.all([1, 2, 3].map(() => startTestApp(databaseUrl)));
      try {
        const documents = await Promise.all(instances.map(async (instance) => (await instance.app.inject({ url: '/.well-known/jwks.json' })).body));
        expect(new Set(documents).size).toBe(1);
        expect((JSON.parse(documents[0]!) as Jwks).keys).toHaveLength(1);
        const creators = instances.filter((instance) => instance.logs.some((line) => line.includes('created the key ring')));
        expect(creators).toHaveLength(1);
        expect(await rawQuery(databaseUrl, 'select kid from signing_keys')).toHaveLength(1);
        expect(await rawQuery(databaseUrl, 'select id from key_ring')).toHaveLength(1);
      } finally {
        await Promise.all(instances.map((instance) => instance.close()));
      }
    });

    describe('two service processes', () => {
      let databaseUrl: string;
      let a: RunningService;
      let b: RunningService;
      const email = `shared-${process.pid}@example.com`;
      const password = 'amber-quarry-window-83';
      let oldToken: string;
      let oldKid: string;
      let newKid: string;
      let newToken: string;

      const both = () => [a, b] as const;

      beforeAll(async () => {
        databaseUrl = await engine.createDatabaseUrl();
        const [portA, portB] = [await freePort(), await freePort()];
        const common = { DATABASE_URL: databaseUrl, PUBLIC_URL, KEYRING_SECRET: undefined };
        // Started at the same moment, on a database that has no tables and no key ring yet.
        [a, b] = await Promise.all([startService({ ...common, PORT: String(portA) }), startService({ ...common, PORT: String(portB) })]);
      });

      afterAll(async () => {
        await Promise.all([a?.stop(), b?.stop()]);
      });

      it('started together on a fresh database, they create one key ring and publish the same JWKS', async ({ expect }) => {
        const [jwksA, jwksB] = await Promise.all([jwksOf(a), jwksOf(b)]);
        expect(jwksA.kids).toHaveLength(1);
        expect(jwksB.text).toBe(jwksA.text);
        const creators = both().filter((service) => service.handle.stdout().includes('created the key ring'));
        expect(creators).toHaveLength(1);
        expect(await rawQuery(databaseUrl, 'select kid from signing_keys')).toEqual([{ kid: jwksA.kids[0] }]);
      });

      it('a token issued by one instance is accepted by the other', async ({ expect }) => {
        const added = await runCli(['users', 'add', '--email', email, '--password', password, '--name', 'shared_user', '--confirmed'], {
          DATABASE_URL: databaseUrl,
        });
        expect(added.code, added.stderr).toBe(0);

        oldToken = await signIn(a, email, password);
        oldKid = kidOf(oldToken);
        expect((await jwksOf(a)).kids).toEqual([oldKid]);
        expect(await meStatus(b, oldToken)).toEqual({ status: 200, body: 'shared_user' });
        expect(await meStatus(a, oldToken)).toEqual({ status: 200, body: 'shared_user' });
        expect((await meStatus(b, `${oldToken.slice(0, -4)}AAAA`)).status).toBe(401);
      });

      it('keys rotate by the CLI reaches both within 5 s, and a token of the new key issued by one is accepted by the other', async ({ expect }) => {
        expect(oldToken, 'needs the token of the previous step').toBeDefined();
        const rotated = await runCli(['keys', 'rotate'], { DATABASE_URL: databaseUrl });
        const deadline = Date.now() + PROPAGATION_MS;
        expect(rotated.code, rotated.stderr).toBe(0);
        newKid = rotated.stdout.trim();
        expect(newKid).not.toBe(oldKid);

        await waitUntil(async () => (await jwksOf(b)).kids.includes(newKid), { timeoutMs: deadline - Date.now(), what: 'B to publish the new kid' });
        await waitUntil(async () => (await jwksOf(a)).kids.includes(newKid), { timeoutMs: deadline - Date.now(), what: 'A to publish the new kid' });

        newToken = await signIn(a, email, password);
        expect(kidOf(newToken)).toBe(newKid);
        expect((await meStatus(b, newToken)).status).toBe(200);
        // The superseded key verifies until its tokens expire.
        expect((await meStatus(b, oldToken)).status).toBe(200);
        expect((await jwksOf(b)).kids).toEqual(expect.arrayContaining([oldKid, newKid]));
      });

      it('keys revoke --kid of the old key by the CLI makes both instances refuse its tokens (401) within 5 s, and only those', async ({ expect }) => {
        expect(newToken, 'needs the tokens of the previous steps').toBeDefined();
        const revoked = await runCli(['keys', 'revoke', '--kid', oldKid], { DATABASE_URL: databaseUrl });
        const deadline = Date.now() + PROPAGATION_MS;
        expect(revoked.code, revoked.stderr).toBe(0);
        // Not the current key: nothing is rotated, nothing printed.
        expect(revoked.stdout).toBe('');

        for (const service of both()) {
          await waitUntil(async () => (await meStatus(service, oldToken)).status === 401, {
            timeoutMs: deadline - Date.now(),
            what: `${service.url} to refuse the token of the revoked key`,
          });
        }
        for (const service of both()) {
          expect((await meStatus(service, oldToken)).status).toBe(401);
          expect((await meStatus(service, newToken)).status).toBe(200);
          expect((await jwksOf(service)).kids).toEqual([newKid]);
        }
      });
    });

    it('with KEYRING_SECRET the ring is stored encrypted, and instances with another secret or none refuse to start with a clear error', async ({ expect }) => {
      const databaseUrl = await engine.createDatabaseUrl();
      const secret = 'ring-secret-a8f3e1d2c4b5a6978877665544332211';
      const otherSecret = 'ring-secret-0000111122223333444455556666777788';
      const first = await startTestApp(databaseUrl, { env: { KEYRING_SECRET: secret } });
      let kid: string;
      try {
        kid = first.services.keyRing.current.kid;
        const keys = await rawQuery<{ private_jwk: string }>(databaseUrl, 'select private_jwk from signing_keys');
        const rings = await rawQuery<{ secrets: string }>(databaseUrl, 'select secrets from key_ring');
        expect(keys).toHaveLength(1);
        expect(rings).toHaveLength(1);
        for (const sealed of [keys[0]!.private_jwk, rings[0]!.secrets]) {
          expect(sealed.startsWith('enc.v1.')).toBe(true);
          expect(sealed).not.toMatch(/"d"|"cookie"|"kty"/);
        }
      } finally {
        await first.close();
      }

      // The same secret opens it again.
      const again = await startTestApp(databaseUrl, { env: { KEYRING_SECRET: secret } });
      expect(again.services.keyRing.current.kid).toBe(kid);
      await again.close();

      const base = { DATABASE_URL: databaseUrl, PORT: '0', PUBLIC_URL };
      const refusals = [spawnService({ ...base, KEYRING_SECRET: otherSecret }), spawnService({ ...base, KEYRING_SECRET: undefined })];
      const exits = await Promise.all(refusals.map((handle) => handle.exited));
      for (const [index, handle] of refusals.entries()) {
        const output = handle.stdout() + handle.stderr();
        expect(exits[index]!.code, output).not.toBe(0);
        expect(exits[index]!.code, output).not.toBeNull();
        expect(handle.stderr()).toMatch(/^[^\n]*KEYRING_SECRET[^\n]*\n$/);
        expect(handle.stderr()).not.toMatch(STACK_FRAME);
        expect(output).not.toContain('Gatehouse listening');
        expect(output).not.toContain(secret);
        expect(output).not.toContain(otherSecret);
      }
    });
  });
});
