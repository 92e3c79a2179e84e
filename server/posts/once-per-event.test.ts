import { createEvents } from 'gatehouse-auth/graphql';
import { describe, expect, it } from 'vitest';
import { oncePerEvent, RecentEvents } from './once-per-event.ts';
import type { Announcement } from './outbox-publisher.ts';

type Topics = { postCreated: Announcement<{ title: string }> };

const announce = (eventId: number, title: string): Announcement<{ title: string }> => ({ eventId, payload: { title } });

describe('oncePerEvent', () => {
  it('delivers an event to every subscriber once, and drops its repeat (the relay publishing it again)', async () => {
    const events = createEvents<Topics>();
    const recent = new RecentEvents();
    const pushed: Array<{ title: string }> = [];
    const pushedToo: Array<{ title: string }> = [];
    oncePerEvent(events.subscribe('postCreated'), recent).push((post) => pushed.push(post));
    oncePerEvent(events.subscribe('postCreated'), recent).push((post) => pushedToo.push(post));
    const pulled = oncePerEvent(events.subscribe('postCreated'), recent);

    await events.publish('postCreated', announce(1, 'one'));
    await events.publish('postCreated', announce(1, 'one'));
    await events.publish('postCreated', announce(2, 'two'));

    expect(pushed.map((post) => post.title)).toEqual(['one', 'two']);
    expect(pushedToo.map((post) => post.title)).toEqual(['one', 'two']);
    // A subscriber reading with next() gets the same, later.
    expect((await pulled.next()).value).toEqual({ title: 'one' });
    expect((await pulled.next()).value).toEqual({ title: 'two' });
    // Every subscriber of one arrival gets the same payload object (one execution serves them all).
    expect(pushedToo[0]).toBe(pushed[0]);
  });

  it('ends with its source', async () => {
    const events = createEvents<Topics>();
    const stream = oncePerEvent(events.subscribe('postCreated'), new RecentEvents());
    const waiting = stream.next();
    await stream.return!();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});

describe('RecentEvents', () => {
  it('admits the arrival that brought an id to each subscriber, not another arrival of it', () => {
    const recent = new RecentEvents();
    const first = announce(7, 'x');
    expect(recent.admits(first)).toBe(true);
    expect(recent.admits(first)).toBe(true);
    expect(recent.admits(announce(7, 'x'))).toBe(false);
    expect(recent.admits(announce(8, 'y'))).toBe(true);
  });

  it('forgets the oldest ids past its capacity', () => {
    const recent = new RecentEvents(2);
    const kept = [announce(1, 'a'), announce(2, 'b'), announce(3, 'c')];
    for (const announcement of kept) recent.admits(announcement);
    // 1 was forgotten: a repeat of it passes; 2 and 3 are still known.
    expect(recent.admits(announce(1, 'a'))).toBe(true);
    expect(recent.admits(announce(3, 'c'))).toBe(false);
  });
});
