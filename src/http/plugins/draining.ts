import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { problem, sendProblem } from '../problem.ts';
import type { ApplicationPhase } from '../request-pipeline.ts';

/**
 * What requests meet while the app closes (`app.close()`, as on SIGTERM): the server stops
 * accepting connections and waits for the requests under way, which finish as usual. A request
 * that arrives meanwhile on a connection that was already open is not run: it is answered 503
 * problem+json at once, before its body is read. Every answer sent while closing carries
 * `Connection: close`, so that no connection outlives its last answer and the client's next
 * request opens a new connection (to another instance behind a load balancer).
 *
 * Fastify's own `return503OnClosing` answers with a JSON body of its own; `serverOptions` turns
 * it off so that these answers are the problems of docs/errors.md.
 */
async function draining(app: FastifyInstance): Promise<void> {
  let closing = false;
  // preClose runs before the server stops listening and waits for its connections.
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks: on every request, and nothing to wait for until the app closes.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    // Answered here: the hook chain stops without `done`.
    sendProblem(reply.header('connection', 'close'), problem('GH_SHUTTING_DOWN', (m) => m.problemShuttingDown));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

const drainingPlugin = fp(draining, { name: 'gatehouse-draining' });

/** The request pipeline's first phase (request-pipeline.ts): nothing runs before the refusal. */
export const drainingPhase: ApplicationPhase = {
  scope: 'application',
  register: async (app) => {
    await app.register(drainingPlugin);
  },
};
