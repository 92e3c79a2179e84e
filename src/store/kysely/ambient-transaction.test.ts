import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../create-store.ts';
import type { Store } from '../ports.ts';

describe('the store unit of work', () => {
  let store: Store;
  beforeEach(async () => {
    store = await createStore('sqlite::memory:');
    await store.migrate();
  });
  afterEach(() => store.close());

  const event = (type: string) => ({ type, userId: null, at: 1, ip: null, detail: null });
  const types = async () => (await store.audit.list({ limit: 10 })).map((row) => row.type);

  it('commits every port call inside it together, and runs the after-commit effects once committed', async () => {
    const effects: string[] = [];
    await store.unitOfWork.atomically(async () => {
      await store.audit.append(event('first'));
      store.unitOfWork.afterCommit(() => effects.push('after'));
      // A nested unit joins the outer one: its effect too waits for the outer commit.
      await store.unitOfWork.atomically(async () => store.audit.append(event('second')));
      expect(effects).toEqual([]);
    });
    expect(effects).toEqual(['after']);
    expect(await types()).toEqual(['second', 'first']);
  });

  it('rolls every port call back when the work throws, and runs no effect', async () => {
    const effects: string[] = [];
    const failing = store.unitOfWork.atomically(async () => {
      await store.audit.append(event('lost'));
      store.unitOfWork.afterCommit(() => effects.push('after'));
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    expect(effects).toEqual([]);
    expect(await types()).toEqual([]);
  });

  it('runs an effect at once outside any unit of work', () => {
    const effects: string[] = [];
    store.unitOfWork.afterCommit(() => effects.push('now'));
    expect(effects).toEqual(['now']);
  });
});
