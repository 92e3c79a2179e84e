// The baseline of every ratio: Fastify with one route and nothing else (no logger, no plugins).
// Started by bench/run.ts pinned to the same core as Gatehouse; `PORT` and `HOST` come from the env.
import Fastify from 'fastify';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}

await app.listen({ port, host });
