import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable } from '../../test/helpers/databases.ts';
import { createEvents, type Events } from './events.ts';

type Topics = { greeted: { name: string }; counted: number };

const withRedis = await redisAvailable();
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const sources: { name: string; make: () => Events<Topics>; skip: boolean }[] = [
  { name: 'in memory', make: () => createEvents<Topics>(), skip: false },
  // A prefix of this process's own: other test files publish on the same Redis.
  { name: 'through Redis', make: () => createEvents<Topics>({ redisUrl, channelPrefix: `gatehouse-test:${process.pid}:` }), skip: !withRedis },
];

describe.each(sources)('events $name', ({ make, skip }) => {
  const opened: Events<Topics>[] = [];
  const open = async () => {
    const events = make();
    opened.push(events);
    await events.start();
    return events;
  };
  afterAll(() => Promise.all(opened.map((events) => events.close())));

  it.skipIf(skip)("gives each topic's subscribers that topic's payloads, in order, and the same object to each", async () => {
    const events = await open();
    const greetedA = events.subscribe('greeted');
    const greetedB = events.subscribe('greeted');
    const counted = events.subscribe('counted');
    await events.publish('counted', 1);
    await events.publish('greeted', { name: 'ann' });
    await events.publish('greeted', { name: 'bob' });
    const a = [await greetedA.next(), await greetedA.next()];
    const b = [await greetedB.next(), await greetedB.next()];
    expect(a.map((step) => step.value)).toEqual([{ name: 'ann' }, { name: 'bob' }]);
    // Parsed once for every subscriber of the instance: one object, which a shared delivery keys on.
    expect(b[0]!.value).toBe(a[0]!.value);
    expect(await counted.next()).toEqual({ done: false, value: 1 });
    await Promise.all([greetedA, greetedB, counted].map((stream) => stream.return!()));
  });

  it.skipIf(skip)('stops delivering to a subscriber that returned, and ends its iterator', async () => {
    const events = await open();
    const leaving = events.subscribe('counted');
    const staying = events.subscribe('counted');
    const ended = leaving.next();
    await leaving.return!();
    expect(await ended).toEqual({ done: true, value: undefined });
    await events.publish('counted', 7);
    expect(await staying.next()).toEqual({ done: false, value: 7 });
    await staying.return!();
  });
});

describe.skipIf(!withRedis)('events through Redis across instances', () => {
  it('reaches the subscribers of another instance once each, a subscriber added after start included', async () => {
    const prefix = `gatehouse-test:${process.pid}:across:`;
    const [one, two] = [createEvents<Topics>({ redisUrl, channelPrefix: prefix }), createEvents<Topics>({ redisUrl, channelPrefix: prefix })];
    await Promise.all([one.start(), two.start()]);
    try {
      const onTwo = two.subscribe('counted');
      const onOne = one.subscribe('counted');
      await one.publish('counted', 1);
      await two.publish('counted', 2);
      expect([(await onTwo.next()).value, (await onTwo.next()).value]).toEqual([1, 2]);
      expect([(await onOne.next()).value, (await onOne.next()).value]).toEqual([1, 2]);
      await Promise.all([onOne.return!(), onTwo.return!()]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('events through a Redis that does not answer', () => {
  it('start at once and reach the subscribers of this instance, once each', async () => {
    // Port 1: nothing listens there.
    const events = createEvents<Topics>({ redisUrl: 'redis://127.0.0.1:1', channelPrefix: `gatehouse-test:${process.pid}:away:` });
    try {
      await events.start();
      const counted = events.subscribe('counted');
      await events.publish('counted', 1);
      await events.publish('counted', 2);
      expect([(await counted.next()).value, (await counted.next()).value]).toEqual([1, 2]);
      await counted.return!();
    } finally {
      await events.close();
    }
  });
});

