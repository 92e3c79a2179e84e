import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { closeOnSignals } from './shutdown.ts';

// The drain itself is seen from outside, on the service process: test/process/shutdown.test.ts.
describe('closeOnSignals', () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a grace of %s seconds', (graceSeconds) => {
    expect(() => closeOnSignals(Fastify(), { graceSeconds })).toThrow(RangeError);
  });

  it('listens for SIGTERM and SIGINT until told to stop', () => {
    const before = { term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') };
    const stop = closeOnSignals(Fastify(), { graceSeconds: 1 });
    expect({ term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') }).toEqual({ term: before.term + 1, int: before.int + 1 });
    stop();
    expect({ term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT') }).toEqual(before);
  });
});
