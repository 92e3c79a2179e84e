/**
 * The service's event outbox on each engine: a post and its event are one write; the relays of
 * several instances at once publish each stale event once, take over a claim whose relay died, and
 * leave alone what its writer is still publishing; housekeeping deletes only what was published.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createEvents } from '../../src/graphql/events.ts';
import { createStore } from '../../src/store/create-store.ts';
import type { Store } from '../../src/store/ports.ts';
import { type Announcement, OutboxPublisher } from '../../server/posts/outbox-publisher.ts';
import { serviceData } from '../../server/storage/service-data.ts';
import { serviceMigrations } from '../../server/storage/service-migrations.ts';
import type { ServiceTables } from '../../server/storage/service-tables.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

const TIMINGS = { staleAfterMs: 5_000, claimMs: 10_000 };
const SILENT = { warn: () => undefined };

class TestClock {
  constructor(public time = 1_000_000) {}
  now = () => this.time;
}

describe.each(engines)('The event outbox on $engine', (engine) => {
  const database = useMigratedStore(engine, { migrations: serviceMigrations });
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  /** Another instance's store on the same database: its own connections. */
  const anotherStore = async (): Promise<Store> => {
    const store = await createStore(database.databaseUrl, { ...engine.tables, migrations: serviceMigrations });
    opened.push(store);
    return store;
  };

  const author = async () =>
    (await database.store.users.create({ email: 'a@example.com', normalizedEmail: 'a@example.com', userName: null, normalizedUserName: null, passwordHash: null, emailConfirmed: true, createdAt: 1 })).id;

  const outboxRows = () => database.store.database.kysely<ServiceTables>().selectFrom('event_outbox').selectAll().orderBy('id').execute();

  /** Writes `count` events as a killed instance leaves them: committed, never published. */
  const leftUnpublished = async (count: number, createdAt: number): Promise<number[]> => {
    const { outbox } = serviceData(database.store.database);
    const db = database.store.database.kysely<ServiceTables>();
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push((await outbox.add(db, { topic: 'postCreated', payload: { n: i }, createdAt })).id);
    return ids;
  };

  it('writes a post with its event, or neither', async () => {
    const authorId = await author();
    const { posts } = serviceData(database.store.database);
    const { post, event } = await posts.create({ authorId, title: 't', body: 'b', createdAt: 5 });
    expect(event).toEqual({ id: expect.any(Number), topic: 'postCreated', payload: post, createdAt: 5 });
    expect(await outboxRows()).toEqual([
      { id: event.id, topic: 'postCreated', payload: JSON.stringify(post), created_at: 5, published_at: null, claimed_until: null },
    ]);
    // No such author: the post's insert fails, and its event is not left behind.
    await expect(posts.create({ authorId: authorId + 100, title: 't', body: 'b', createdAt: 6 })).rejects.toThrow(/foreign key/i);
    expect(await outboxRows()).toHaveLength(1);
  });

  it('publishes each stale event once when the relays of three instances run at once', async () => {
    const clock = new TestClock();
    const ids = await leftUnpublished(30, clock.time - TIMINGS.staleAfterMs);
    const events = createEvents();
    const seen: number[] = [];
    events.subscribe('postCreated').push((announcement) => seen.push((announcement as Announcement).eventId));
    const relays = await Promise.all(
      [database.store, await anotherStore(), await anotherStore()].map(
        (store) => new OutboxPublisher({ outbox: serviceData(store.database).outbox, events, clock, logger: SILENT, timings: TIMINGS }),
      ),
    );
    // Each opens its connections first (a pass with nothing to do), so that the three passes overlap.
    expect(await Promise.all(relays.map((relay) => relay.relay()))).toEqual([0, 0, 0]);
    clock.time += 1;
    const published = await Promise.all(relays.map((relay) => relay.relay()));
    expect(published.reduce((a, b) => a + b, 0)).toBe(30);
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    expect((await outboxRows()).every((row) => row.published_at === clock.time)).toBe(true);
    // Nothing is left to publish.
    expect(await Promise.all(relays.map((relay) => relay.relay()))).toEqual([0, 0, 0]);
  });

  it('leaves an event its writer may still be publishing, and one another relay has claimed, until the claim runs out', async () => {
    const clock = new TestClock();
    const events = createEvents();
    const seen: number[] = [];
    events.subscribe('postCreated').push((announcement) => seen.push((announcement as Announcement).eventId));
    const relay = new OutboxPublisher({ outbox: serviceData(database.store.database).outbox, events, clock, logger: SILENT, timings: TIMINGS });
    const [fresh] = await leftUnpublished(1, clock.time - TIMINGS.staleAfterMs + 1);
    expect(await relay.relay()).toBe(0);

    // A relay that died after claiming: its claim holds until it runs out.
    clock.time += 2;
    const { outbox } = serviceData((await anotherStore()).database);
    expect((await outbox.claimUnpublished({ createdBefore: clock.time - TIMINGS.staleAfterMs, now: clock.time, claimUntil: clock.time + TIMINGS.claimMs, limit: 10 })).map((event) => event.id)).toEqual([fresh]);
    expect(await relay.relay()).toBe(0);
    clock.time += TIMINGS.claimMs;
    expect(await relay.relay()).toBe(1);
    expect(seen).toEqual([fresh]);
  });

  it('publishes a new event at once and marks it, so no relay sends it again', async () => {
    const clock = new TestClock();
    const events = createEvents();
    const seen: number[] = [];
    events.subscribe('postCreated').push((announcement) => seen.push((announcement as Announcement).eventId));
    const data = serviceData(database.store.database);
    const writer = new OutboxPublisher({ outbox: data.outbox, events, clock, logger: SILENT, timings: TIMINGS });
    const { event } = await data.posts.create({ authorId: await author(), title: 't', body: 'b', createdAt: clock.time });
    await writer.publish(event);
    expect(seen).toEqual([event.id]);
    // Marks are written together shortly after; close writes those still waiting.
    await writer.close();
    expect((await outboxRows())[0]!.published_at).toBe(clock.time);
    clock.time += TIMINGS.staleAfterMs + 1;
    const relay = new OutboxPublisher({ outbox: serviceData((await anotherStore()).database).outbox, events, clock, logger: SILENT, timings: TIMINGS });
    expect(await relay.relay()).toBe(0);
    expect(seen).toEqual([event.id]);
  });

  it('deletes published events past their keeping, and never an unpublished one', async () => {
    const { outbox } = serviceData(database.store.database);
    const [published, later, unpublished] = await leftUnpublished(3, 10);
    await outbox.markPublished([published!], 100);
    await outbox.markPublished([later!], 200);
    expect(await outbox.prunePublished(150)).toBe(1);
    expect((await outboxRows()).map((row) => row.id)).toEqual([later, unpublished]);
  });
});
