import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { RotationOutcome, Store } from '../../src/store/ports.ts';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';
import { inSeparateProcesses } from './separate-processes.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

describe.each(engines)('RefreshTokenStore on $label', (engine) => {
  const clock = new ManualClock(50_000);
  const database = useMigratedStore(engine, { clock });
  const refreshTokens = () => database.store.refreshTokens;

  let emails = 0;
  const createUser = async () => {
    emails += 1;
    const email = `user${emails}@example.com`;
    const user = await database.store.users.create({
      email,
      normalizedEmail: email,
      userName: null,
      normalizedUserName: null,
      passwordHash: null,
      emailConfirmed: true,
      createdAt: 1,
    });
    return user.id;
  };
  const startFamily = async (tokenHash = 't0', options: { userId?: number; expiresAt?: number; securityStamp?: number } = {}) =>
    refreshTokens().createFamily({
      userId: options.userId ?? (await createUser()),
      securityStamp: options.securityStamp ?? 1,
      tokenHash,
      createdAt: 1_000,
      expiresAt: options.expiresAt ?? 100_000,
    });
  const rotate = (tokenHash: string, nextHash: string, now = 2_000, grace: { sealed: string; until: number } | null = null) =>
    refreshTokens().rotate({ tokenHash, nextHash, now, grace });

  describe('families and rotation', () => {
    it('creates a family with its first token (no parent, unused), and finds the token with its family', async () => {
      const userId = await createUser();
      const created = await startFamily('t0', { userId, securityStamp: 3 });
      expect(created).toEqual({
        // Begun without a method or client told: nothing known of them; its last use is its creation.
        family: {
          id: expect.any(Number),
          userId,
          securityStamp: 3,
          method: null,
          // Begun with no organization active.
          organizationId: null,
          createdAt: 1_000,
          expiresAt: 100_000,
          revokedAt: null,
          lastSeenAt: 1_000,
          userAgent: null,
          ip: null,
        },
        token: {
          id: expect.any(Number),
          familyId: created.family.id,
          parentId: null,
          tokenHash: 't0',
          createdAt: 1_000,
          usedAt: null,
          graceSealed: null,
          graceUntil: null,
        },
      });
      expect(await refreshTokens().find('t0')).toEqual(created);
      expect(await refreshTokens().find('never-issued')).toBeNull();
    });

    it('refuses a family for a user that does not exist, and stores no token for it', async () => {
      await expect(startFamily('t0', { userId: 4242 })).rejects.toThrow();
      expect(await refreshTokens().find('t0')).toBeNull();
    });

    it('rotates the unused token of a live family: it is marked used, and its successor (its child) is the new head', async () => {
      const { family, token } = await startFamily();
      const outcome = await rotate('t0', 't1', 2_000);
      // The rotation is the family's last use.
      const used = { ...family, lastSeenAt: 2_000 };
      expect(outcome).toEqual({
        kind: 'rotated',
        family: used,
        next: {
          id: expect.any(Number),
          familyId: family.id,
          parentId: token.id,
          tokenHash: 't1',
          createdAt: 2_000,
          usedAt: null,
          graceSealed: null,
          graceUntil: null,
        },
      });
      expect((await refreshTokens().find('t0'))?.token).toMatchObject({ usedAt: 2_000, graceSealed: null, graceUntil: null });
      expect(await refreshTokens().find('t1')).toEqual({ token: (outcome as { next: unknown }).next, family: used });
    });

    it('reports the replaced token presented again as reused with successorUnused true, keeps its first use time and inserts nothing', async () => {
      const { family } = await startFamily();
      await rotate('t0', 't1', 2_000);
      const outcome = await rotate('t0', 't1-again', 3_000);
      expect(outcome).toEqual({
        kind: 'reused',
        family: { ...family, lastSeenAt: 2_000 },
        token: expect.objectContaining({ tokenHash: 't0', usedAt: 2_000 }),
        successorUnused: true,
      });
      expect(await refreshTokens().find('t1-again')).toBeNull();
      expect((await refreshTokens().find('t1'))?.token.usedAt).toBeNull();
    });

    it('reports the first token as reused with successorUnused false once its successor was rotated too', async () => {
      await startFamily();
      expect((await rotate('t0', 't1', 2_000)).kind).toBe('rotated');
      expect((await rotate('t1', 't2', 3_000)).kind).toBe('rotated');
      expect(await rotate('t0', 'x', 4_000)).toMatchObject({ kind: 'reused', token: { tokenHash: 't0' }, successorUnused: false });
      // The immediate predecessor of the live head is the one case a grace window may forgive.
      expect(await rotate('t1', 'y', 4_000)).toMatchObject({ kind: 'reused', token: { tokenHash: 't1' }, successorUnused: true });
      expect(await refreshTokens().find('x')).toBeNull();
      expect(await refreshTokens().find('y')).toBeNull();
    });

    it('keeps the grace value on the used token, readable with find and returned with a later reuse', async () => {
      await startFamily();
      await rotate('t0', 't1', 2_000, { sealed: 'sealed-pair', until: 32_000 });
      expect((await refreshTokens().find('t0'))?.token).toMatchObject({ usedAt: 2_000, graceSealed: 'sealed-pair', graceUntil: 32_000 });
      // Kept on the used token only, not on its successor.
      expect((await refreshTokens().find('t1'))?.token).toMatchObject({ graceSealed: null, graceUntil: null });
      expect(await rotate('t0', 't1-again', 3_000)).toMatchObject({
        kind: 'reused',
        token: { graceSealed: 'sealed-pair', graceUntil: 32_000 },
        successorUnused: true,
      });
    });

    it('rolls the whole rotation back when the successor cannot be stored (its hash is taken): the token stays unused', async () => {
      await startFamily('t0');
      await startFamily('taken');
      await expect(rotate('t0', 'taken', 2_000, { sealed: 's', until: 9_000 })).rejects.toThrow();
      expect((await refreshTokens().find('t0'))?.token).toMatchObject({ usedAt: null, graceSealed: null, graceUntil: null });
      expect((await rotate('t0', 't1', 3_000)).kind).toBe('rotated');
    });

    it('answers unknown for a hash that was never stored', async () => {
      await startFamily();
      expect(await rotate('never-issued', 't1')).toEqual({ kind: 'unknown' });
      expect(await refreshTokens().find('t1')).toBeNull();
    });
  });

  describe('ended families', () => {
    it('answers ended for a token of a revoked family, leaves the token unused and inserts nothing', async () => {
      const { family } = await startFamily();
      expect(await refreshTokens().revokeFamily(family.id, 1_500)).toBe(true);
      expect(await rotate('t0', 't1', 2_000)).toEqual({ kind: 'ended', family: { ...family, revokedAt: 1_500 } });
      expect((await refreshTokens().find('t0'))?.token.usedAt).toBeNull();
      expect(await refreshTokens().find('t1')).toBeNull();
    });

    it('answers ended once the family has expired (expiresAt <= now), and rotates until then', async () => {
      await startFamily('a', { expiresAt: 10_000 });
      await startFamily('b', { expiresAt: 10_000 });
      expect(await rotate('a', 'a1', 10_000)).toMatchObject({ kind: 'ended', family: { expiresAt: 10_000, revokedAt: null } });
      expect(await refreshTokens().find('a1')).toBeNull();
      expect((await refreshTokens().find('a'))?.token.usedAt).toBeNull();
      expect((await rotate('b', 'b1', 9_999)).kind).toBe('rotated');
    });

    it('answers ended, not reused, for a used token of a revoked family', async () => {
      const { family } = await startFamily();
      await rotate('t0', 't1', 2_000);
      await refreshTokens().revokeFamily(family.id, 2_500);
      expect((await rotate('t0', 'x', 3_000)).kind).toBe('ended');
      expect((await rotate('t1', 'y', 3_000)).kind).toBe('ended');
    });

    it('revokes a live family once: true, then false (keeping the first time), false for an unknown or expired family', async () => {
      const { family } = await startFamily();
      const expired = await startFamily('old', { expiresAt: 2_000 });
      expect(await refreshTokens().revokeFamily(family.id, 3_000)).toBe(true);
      expect(await refreshTokens().revokeFamily(family.id, 4_000)).toBe(false);
      expect((await refreshTokens().find('t0'))?.family.revokedAt).toBe(3_000);
      expect(await refreshTokens().revokeFamily(family.id + 1_000, 4_000)).toBe(false);
      expect(await refreshTokens().revokeFamily(expired.family.id, 4_000)).toBe(false);
      expect((await refreshTokens().find('old'))?.family.revokedAt).toBeNull();
    });

    it('revokes every live family of one user and returns how many, leaving other users\' families alone', async () => {
      const ada = await createUser();
      const bob = await createUser();
      await startFamily('a1', { userId: ada });
      await startFamily('a2', { userId: ada });
      const revoked = await startFamily('a3', { userId: ada });
      await refreshTokens().revokeFamily(revoked.family.id, 1_500);
      await startFamily('a4', { userId: ada, expiresAt: 2_000 });
      await startFamily('b1', { userId: bob });
      expect(await refreshTokens().revokeUserFamilies(ada, 5_000)).toBe(2);
      expect((await refreshTokens().find('a1'))?.family.revokedAt).toBe(5_000);
      expect((await refreshTokens().find('a2'))?.family.revokedAt).toBe(5_000);
      expect((await refreshTokens().find('a3'))?.family.revokedAt).toBe(1_500);
      expect((await refreshTokens().find('a4'))?.family.revokedAt).toBeNull();
      expect((await refreshTokens().find('b1'))?.family.revokedAt).toBeNull();
      expect(await refreshTokens().revokeUserFamilies(ada, 6_000)).toBe(0);
      expect((await rotate('b1', 'b2', 6_000)).kind).toBe('rotated');
    });

    it('deletes a user\'s families and their tokens with the user', async () => {
      const userId = await createUser();
      await startFamily('t0', { userId });
      await rotate('t0', 't1');
      const other = await startFamily('other');
      expect(await database.store.users.delete(userId)).toBe(true);
      expect(await refreshTokens().find('t0')).toBeNull();
      expect(await refreshTokens().find('t1')).toBeNull();
      expect(await rotate('t1', 't2')).toEqual({ kind: 'unknown' });
      expect((await refreshTokens().find('other'))?.family).toEqual(other.family);
    });
  });

  describe('prune', () => {
    it('deletes families (with their tokens) expired or revoked before the time, and clears grace values past it', async () => {
      await startFamily('expired', { expiresAt: 4_000 });
      const revoked = await startFamily('revoked');
      await refreshTokens().revokeFamily(revoked.family.id, 4_500);
      await startFamily('expires-at-the-bound', { expiresAt: 5_000 });
      const revokedAtBound = await startFamily('revoked-at-the-bound');
      await refreshTokens().revokeFamily(revokedAtBound.family.id, 5_000);
      await startFamily('early-grace');
      await rotate('early-grace', 'early-grace-next', 2_000, { sealed: 'sealed-1', until: 4_999 });
      await startFamily('late-grace');
      await rotate('late-grace', 'late-grace-next', 2_000, { sealed: 'sealed-2', until: 5_000 });

      expect(await refreshTokens().prune(5_000)).toBe(2);
      expect(await refreshTokens().find('expired')).toBeNull();
      expect(await refreshTokens().find('revoked')).toBeNull();
      expect(await refreshTokens().find('expires-at-the-bound')).not.toBeNull();
      expect(await refreshTokens().find('revoked-at-the-bound')).not.toBeNull();
      expect((await refreshTokens().find('early-grace'))?.token).toMatchObject({ usedAt: 2_000, graceSealed: null, graceUntil: null });
      expect((await refreshTokens().find('late-grace'))?.token).toMatchObject({ graceSealed: 'sealed-2', graceUntil: 5_000 });
      // The used token is still used: pruning a grace value is not a reset.
      expect(await rotate('early-grace', 'x', 6_000)).toMatchObject({ kind: 'reused', successorUnused: true });
      expect(await refreshTokens().prune(5_000)).toBe(0);
    });
  });

  describe('concurrent rotation', () => {
    const kinds = (outcomes: readonly RotationOutcome[]) => outcomes.map((outcome) => outcome.kind);

    /** Exactly one winner, every other caller a reuse, and only the winner's successor stored. */
    async function expectOneWinner(outcomes: readonly RotationOutcome[], nextHashes: readonly string[]) {
      expect(kinds(outcomes).filter((kind) => kind === 'rotated')).toHaveLength(1);
      expect(kinds(outcomes).filter((kind) => kind === 'reused')).toHaveLength(outcomes.length - 1);
      const winner = outcomes.findIndex((outcome) => outcome.kind === 'rotated');
      for (const [index, nextHash] of nextHashes.entries()) {
        const stored = await refreshTokens().find(nextHash);
        if (index === winner) expect(stored?.token).toMatchObject({ usedAt: null, parentId: expect.any(Number) });
        else expect(stored).toBeNull();
      }
      // The losers lost to a successor that is still unused: the case grace may forgive.
      for (const outcome of outcomes) {
        if (outcome.kind === 'reused') expect(outcome.successorUnused).toBe(true);
      }
    }

    it('lets exactly one of 50 concurrent calls on one store rotate the token; the other 49 see a reuse', async () => {
      await startFamily();
      const nextHashes = Array.from({ length: 50 }, (_, index) => `next-${index}`);
      const outcomes = await Promise.all(nextHashes.map((nextHash) => rotate('t0', nextHash, 2_000)));
      expect(kinds(outcomes).filter((kind) => kind === 'rotated')).toHaveLength(1);
      expect(kinds(outcomes).filter((kind) => kind === 'reused')).toHaveLength(49);
      await expectOneWinner(outcomes, nextHashes);
    });

    // better-sqlite3 waits for a lock synchronously: two Stores on one SQLite file in one process
    // cannot contend (see sqlite-dialect.ts); the separate-process test below covers SQLite.
    it.skipIf(engine.engine === 'sqlite')('lets exactly one of 48 concurrent calls spread over three stores rotate the token', async () => {
      await startFamily();
      const stores: Store[] = [];
      try {
        for (let index = 0; index < 3; index += 1) stores.push(await createStore(database.databaseUrl, engine.tables));
        const nextHashes = Array.from({ length: 48 }, (_, index) => `next-${index}`);
        const outcomes = await Promise.all(
          nextHashes.map((nextHash, index) =>
            stores[index % stores.length]!.refreshTokens.rotate({ tokenHash: 't0', nextHash, now: 2_000, grace: null }),
          ),
        );
        await expectOneWinner(outcomes, nextHashes);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });

    it('lets exactly one of 20 calls from five processes, each with its own store, rotate the token', async () => {
      await startFamily();
      const perProcess = await inSeparateProcesses<string[]>(
        5,
        database.databaseUrl,
        `const outcomes = await Promise.all([0, 1, 2, 3].map((call) =>
           store.refreshTokens.rotate({ tokenHash: 't0', nextHash: 'next-' + index + '-' + call, now: 2000, grace: null })));
         return outcomes.map((outcome) => outcome.kind + (outcome.kind === 'reused' ? ':' + outcome.successorUnused : ''));`,
        engine.tables,
      );
      const all = perProcess.flat();
      expect(all).toHaveLength(20);
      expect(all.filter((kind) => kind === 'rotated')).toHaveLength(1);
      expect(all.filter((kind) => kind === 'reused:true')).toHaveLength(19);
      const winner = all.indexOf('rotated');
      const winnerHash = `next-${Math.floor(winner / 4)}-${winner % 4}`;
      expect((await refreshTokens().find(winnerHash))?.token).toMatchObject({ usedAt: null });
      expect((await refreshTokens().find('t0'))?.token.usedAt).toBe(2_000);
    });
  });
});
