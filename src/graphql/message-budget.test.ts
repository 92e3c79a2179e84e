import { describe, expect, it } from 'vitest';
import { MessageBudget } from './message-budget.ts';

describe('MessageBudget', () => {
  it('spends a burst at once, then refills at its rate up to the burst and no further', () => {
    let now = 0;
    const budget = new MessageBudget(3, 2, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    now += 500;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 60_000;
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
  });
});
