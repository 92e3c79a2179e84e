// The Express baseline: Express 5 with one route and nothing else, for the ratio of the service
// on its Express host. Started pinned to the same core as Gatehouse; `PORT` and `HOST` come from the env.
import express from 'express';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

const app = express();
app.disable('x-powered-by');
app.get('/hello', (_request, response) => {
  response.json({ hello: 'world' });
});

const server = app.listen(port, host);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
