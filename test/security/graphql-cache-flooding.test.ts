/**
 * Flooding the GraphQL result cache's keys (decision 0030): a public query posted again and again
 * with a distinct unused 256 KiB variable each time made a new key each time, ~150 MB for 600
 * posts. Execution ignores variables the operation does not declare, and so does the key now:
 * every such post is the same request, answered from memory without reading the store. The
 * caches' byte budgets themselves are tested on the service (src/graphql/graphql-service.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { bearer, json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

describe('GraphQL result cache flooded with unused variables', () => {
  const reads = { count: 0 };
  const marks = { count: 0 };
  const ctx = useTestApp(sqlite!, {
    storeLog: (event) => {
      if (event.level !== 'query') return;
      if (/from "posts"/.test(event.query.sql)) reads.count += 1;
      if (/update "event_outbox"/.test(event.query.sql)) marks.count += 1;
    },
  });

  it('answers a public query from memory whatever unused variables come with it, and still tells used ones apart', async () => {
    const { user } = await ctx.createUser();
    const token = await ctx.tokenFor(user);
    const created = await ctx.app.inject({ method: 'POST', url: '/graphql', headers: bearer(token), payload: { query: 'mutation { createPost(title: "kept", body: "text") { id } }' } });
    expect(json(created)).not.toHaveProperty('errors');
    // The post's event is marked published shortly after the commit, a write that empties the
    // result cache; the flood is measured after it.
    await vi.waitFor(() => expect(marks.count).toBeGreaterThan(0), { timeout: 5_000, interval: 20 });

    const post = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/graphql', payload });
    const query = 'query($n: Int) { posts(first: $n) { title } }';
    const first = await post({ query, variables: { n: 1 } });
    expect(json(first)).toEqual({ data: { posts: [{ title: 'kept' }] } });
    const before = reads.count;
    for (let i = 0; i < 40; i += 1) {
      const response = await post({ query, variables: { n: 1, [`unused${i}`]: `${i}${'u'.repeat(256 * 1024)}` } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(first.body);
    }
    expect(reads.count).toBe(before);
    // A used variable of another value is another request.
    expect(json(await post({ query, variables: { n: 2 } }))).toEqual({ data: { posts: [{ title: 'kept' }] } });
    expect(reads.count).toBeGreaterThan(before);
  });
});
