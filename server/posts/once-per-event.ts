import type { EventStream } from 'gatehouse-auth/graphql';
import type { Announcement } from './outbox-publisher.ts';

/** Event ids remembered per instance: many more than are published while the relay waits to send a repeat. */
const REMEMBERED = 10_000;

/**
 * The announcements this instance has delivered lately, by event id, so that a repeat (the outbox
 * relay publishing again what a killed instance had published and not marked) is dropped.
 *
 * One memory for every subscriber: the events source hands one arrival to all of an instance's
 * subscribers as the same object, so an id seen with that object is this arrival, delivered to the
 * next subscriber; seen with another object (or one already collected), it is a repeat. The
 * objects are held weakly: the memory keeps ids, not payloads.
 */
export class RecentEvents {
  private readonly seen = new Map<number, WeakRef<Announcement>>();

  constructor(private readonly capacity = REMEMBERED) {}

  /** Whether `announcement` is to be delivered: its id is new, or it is the arrival that brought it. */
  admits(announcement: Announcement): boolean {
    const first = this.seen.get(announcement.eventId);
    if (first !== undefined) return first.deref() === announcement;
    this.seen.set(announcement.eventId, new WeakRef(announcement));
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value!);
    return true;
  }
}

/**
 * The payloads of `source`'s announcements, each event once for this instance. It pushes as the
 * source does, so a subscription's delivery keeps its direct path, and the payload keeps its
 * identity, so one execution still serves every subscriber.
 */
export function oncePerEvent<T>(source: EventStream<Announcement<T>>, recent: RecentEvents): EventStream<T> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        const step = await source.next();
        if (step.done === true) return { done: true, value: undefined };
        if (recent.admits(step.value)) return { done: false, value: step.value.payload };
      }
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    push(listener) {
      source.push((announcement) => {
        if (recent.admits(announcement)) listener(announcement.payload);
      });
    },
  };
}
