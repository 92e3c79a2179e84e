import { describe, expect, it } from 'vitest';
import { testEnginesWithPrefixedTables } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

// Also with the tables under a prefix (and a schema): a representative set of the ports.
const engines = await testEnginesWithPrefixedTables();

describe.each(engines)('AuditStore on $label', (engine) => {
  const database = useMigratedStore(engine);
  const audit = () => database.store.audit;
  const appendEvents = async (count: number) => {
    for (let index = 1; index <= count; index += 1) {
      await audit().append({ type: `event.${index}`, userId: null, at: index * 1_000, ip: null, detail: null });
    }
  };

  it('returns an empty page when nothing was appended', async () => {
    expect(await audit().list({ limit: 10 })).toEqual([]);
  });

  it('keeps every field, a JSON detail and a null detail alike', async () => {
    await audit().append({ type: 'signin.failed', userId: 7, at: 1_000, ip: '203.0.113.9', detail: { reason: 'password', n: [1, 2] } });
    await audit().append({ type: 'key.rotated', userId: null, at: 2_000, ip: null, detail: null });
    expect(await audit().list({ limit: 10 })).toEqual([
      { id: expect.any(Number), type: 'key.rotated', userId: null, at: 2_000, ip: null, detail: null },
      { id: expect.any(Number), type: 'signin.failed', userId: 7, at: 1_000, ip: '203.0.113.9', detail: { reason: 'password', n: [1, 2] } },
    ]);
  });

  it('lists newest first, at most `limit` events', async () => {
    await appendEvents(5);
    expect((await audit().list({ limit: 3 })).map((event) => event.type)).toEqual(['event.5', 'event.4', 'event.3']);
  });

  it('pages backwards with `before` as an exclusive bound on the id, until the log runs out', async () => {
    await appendEvents(5);
    const first = await audit().list({ limit: 2 });
    const second = await audit().list({ limit: 2, before: first.at(-1)!.id });
    const third = await audit().list({ limit: 2, before: second.at(-1)!.id });
    expect([first, second, third].map((page) => page.map((event) => event.type))).toEqual([
      ['event.5', 'event.4'],
      ['event.3', 'event.2'],
      ['event.1'],
    ]);
    expect(await audit().list({ limit: 2, before: third[0]!.id })).toEqual([]);
  });

  it('filters by type, user and time (from inclusive, to exclusive), each narrowing the others, still newest first', async () => {
    const events: [string, number | null, number][] = [
      ['user.locked', 7, 1_000],
      ['signin.failed', 7, 2_000],
      ['user.locked', 8, 3_000],
      ['user.locked', 7, 4_000],
      ['signin.failed', null, 5_000],
    ];
    for (const [type, userId, at] of events) await audit().append({ type, userId, at, ip: null, detail: null });
    const listed = async (filters: { type?: string; userId?: number; from?: number; to?: number }) =>
      (await audit().list({ limit: 10, ...filters })).map((event) => `${event.type}/${event.userId}@${event.at}`);
    expect(await listed({ type: 'user.locked' })).toEqual(['user.locked/7@4000', 'user.locked/8@3000', 'user.locked/7@1000']);
    expect(await listed({ userId: 7 })).toEqual(['user.locked/7@4000', 'signin.failed/7@2000', 'user.locked/7@1000']);
    expect(await listed({ from: 2_000, to: 4_000 })).toEqual(['user.locked/8@3000', 'signin.failed/7@2000']);
    expect(await listed({ type: 'user.locked', userId: 7, from: 2_000 })).toEqual(['user.locked/7@4000']);
    expect(await listed({ type: 'user.unlocked' })).toEqual([]);
  });

  it('pages a filtered list with `before`, as an unfiltered one', async () => {
    for (let index = 1; index <= 6; index += 1) {
      await audit().append({ type: index % 2 === 0 ? 'even' : 'odd', userId: null, at: index * 1_000, ip: null, detail: null });
    }
    const first = await audit().list({ limit: 2, type: 'even' });
    const second = await audit().list({ limit: 2, type: 'even', before: first.at(-1)!.id });
    expect([first, second].map((page) => page.map((event) => event.at))).toEqual([[6_000, 4_000], [2_000]]);
  });

  it('keeps the events of a user after the user is deleted (no foreign key)', async () => {
    const user = await database.store.users.create({
      email: 'a',
      normalizedEmail: 'a',
      userName: null,
      normalizedUserName: null,
      passwordHash: null,
      emailConfirmed: true,
      createdAt: 1,
    });
    await audit().append({ type: 'user.deleted', userId: user.id, at: 1_000, ip: null, detail: null });
    await database.store.users.delete(user.id);
    expect(await audit().list({ limit: 10 })).toMatchObject([{ type: 'user.deleted', userId: user.id }]);
  });
});
