// The Hono baseline: Hono 4 on @hono/node-server with one route and nothing else, for the ratio
// of the service on its Hono host. Started pinned to the same core as Gatehouse; `PORT` and `HOST` come from the env.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

const app = new Hono();
app.get('/hello', (c) => c.json({ hello: 'world' }));

const server = serve({ fetch: app.fetch, port, hostname: host });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
