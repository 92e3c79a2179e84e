// The floor of a password sign-in on this core: bare Fastify, the JSON body, one Argon2id verify
// with the service's own PasswordHasher (same parameters, same hashing threads at the same
// priority), and a session-sized random cookie. No store, no lockout counter, no audit row, no
// session, no cookie sealing, no cross-site checks: what no sign-in can do without. Started by
// bench/lib/sign-in.ts pinned to the servers' core, with the service's Node arguments; `PORT`,
// `HOST` and `BENCH_PASSWORD` come from the env.
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { PasswordHasher } from '../../src/identity/password-hasher.ts';

const port = Number(process.env.PORT ?? 3002);
const host = process.env.HOST ?? '127.0.0.1';
const password = process.env.BENCH_PASSWORD;
if (!password) throw new Error('BENCH_PASSWORD is not set');

const hasher = new PasswordHasher();
const stored = await hasher.hash(password);

const app = Fastify({ logger: false });
app.get('/health', async () => ({ status: 'ok' }));
app.post<{ Body: { password?: unknown } }>('/account/login', async (request, reply) => {
  const presented = request.body?.password;
  if (typeof presented !== 'string' || !(await hasher.verify(stored, presented))) return reply.code(401).send({ succeeded: false });
  reply.header('set-cookie', `gh.auth=${randomBytes(32).toString('base64url')}; Path=/; HttpOnly; SameSite=Lax`);
  return { succeeded: true };
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}

await app.listen({ port, host });
