/**
 * The service process on SIGTERM (docs/guide.md, "Shutdown"; `SHUTDOWN_GRACE_SECONDS`): the
 * request under way finishes, a request arriving meanwhile on an open connection gets a 503
 * problem+json with `Connection: close`, idle connections close, GraphQL sockets close with
 * 1001, and the process exits 0 within the grace; past the grace, or at a second signal, it exits
 * 1 anyway, naming what was still open. Real processes over real sockets.
 */
import { afterAll, describe, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { openSocket } from '../helpers/graphql-socket.ts';
import { projectRoot, runNode, type RunningService, startService, useProcessCleanup } from '../helpers/processes.ts';
import { serviceArguments } from '../../bench/lib/gatehouse.ts';
import { RawConnection } from './raw-http.ts';

const [sqlite] = await testEngines();
const engine = sqlite!;

const QUERY = JSON.stringify({ query: '{ __typename }' });
const DRAINING = /shutting down: no new connections/;
/** "Within the grace" with room for a loaded machine: a bound, not a timing. */
const MARGIN_MS = 4_000;

useProcessCleanup();
afterAll(() => engine.dropAll());

async function service(env: Record<string, string> = {}): Promise<RunningService> {
  return startService({ DATABASE_URL: await engine.createDatabaseUrl(), PORT: '0', KEYRING_SECRET: undefined, ...env });
}

/**
 * A POST /graphql the server has begun (it answered `100 Continue` to its headers) with half of
 * its body sent: in flight until the rest is written.
 */
async function halfSentQuery(url: string): Promise<RawConnection> {
  const connection = await RawConnection.open(url);
  connection.write(
    `POST /graphql HTTP/1.1\r\nHost: gatehouse.test\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(QUERY)}\r\nExpect: 100-continue\r\n\r\n`,
  );
  await connection.continued();
  connection.write(QUERY.slice(0, 10));
  return connection;
}

/** A kept-alive connection that has had one answer already. */
async function keptAlive(url: string): Promise<RawConnection> {
  const connection = await RawConnection.open(url);
  connection.write('GET /health HTTP/1.1\r\nHost: gatehouse.test\r\n\r\n');
  const first = await connection.nextResponse();
  if (first.status !== 200) throw new Error(`GET /health answered ${first.status}`);
  return connection;
}

describe('the service process on SIGTERM', { timeout: 60_000 }, () => {
  it('finishes the request under way, refuses a new one on an open connection with 503 and Connection: close, closes idle connections and sockets (1001), and exits 0', async ({ expect }) => {
    const running = await service();
    const inFlight = await halfSentQuery(running.url);
    const idle = await keptAlive(running.url);
    const arriving = await keptAlive(running.url);
    // Its next request has begun (the request line is in) when the shutdown starts; it ends after.
    arriving.write('GET /health HTTP/1.1\r\n');
    const socket = openSocket(`${running.url.replace(/^http/, 'ws')}/graphql`);
    await socket.connected;
    // A round trip after those bytes: the server has read them.
    expect((await fetch(`${running.url}/health`)).status).toBe(200);

    const signalledAt = Date.now();
    running.handle.child.kill('SIGTERM');
    await running.handle.waitForLine(DRAINING);

    expect((await socket.closedWithin(5_000)).code).toBe(1001);
    await idle.ended();

    arriving.write('Host: gatehouse.test\r\n\r\n');
    const refused = await arriving.nextResponse();
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toMatchObject({ status: 503, code: 'GH_SHUTTING_DOWN' });
    await arriving.ended();

    expect(running.handle.hasExited()).toBe(false);
    inFlight.write(QUERY.slice(10));
    const finished = await inFlight.nextResponse();
    expect(finished.status).toBe(200);
    expect(JSON.parse(finished.body)).toEqual({ data: { __typename: 'Query' } });
    expect(finished.headers.connection).toBe('close');
    await inFlight.ended();

    const exit = await running.handle.exited;
    expect(exit.code, running.handle.stdout() + running.handle.stderr()).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000 + MARGIN_MS);
    // Nothing new is accepted once it has stopped.
    await expect(fetch(`${running.url}/health`)).rejects.toThrow();
  });

  it('exits 1 within SHUTDOWN_GRACE_SECONDS when a request never finishes, naming it in one log line', async ({ expect }) => {
    const running = await service({ SHUTDOWN_GRACE_SECONDS: '1' });
    const hanging = await halfSentQuery(running.url);
    const signalledAt = Date.now();
    running.handle.child.kill('SIGTERM');
    const exit = await running.handle.exited;
    const elapsed = Date.now() - signalledAt;
    expect(exit.code).toBe(1);
    expect(elapsed).toBeLessThan(1_000 + MARGIN_MS);
    const lines = running.handle.stdout().split('\n').filter((line) => line.includes('outlasted its grace'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ requests: ['POST /graphql'], graceSeconds: 1 });
    hanging.destroy();
  });

  it('exits 1 at once at a second signal during the drain', async ({ expect }) => {
    const running = await service({ SHUTDOWN_GRACE_SECONDS: '60' });
    const hanging = await halfSentQuery(running.url);
    running.handle.child.kill('SIGTERM');
    await running.handle.waitForLine(DRAINING);
    const signalledAt = Date.now();
    running.handle.child.kill('SIGINT');
    const exit = await running.handle.exited;
    expect(exit.code).toBe(1);
    expect(Date.now() - signalledAt).toBeLessThan(MARGIN_MS);
    hanging.destroy();
  });

  it.for(['0', '-1', 'soon'])('refuses SHUTDOWN_GRACE_SECONDS=%s at start: exit 2, one line naming it', async (value, { expect }) => {
    const result = await runNode(serviceArguments(projectRoot), { PORT: '0', DATABASE_URL: await engine.createDatabaseUrl(), SHUTDOWN_GRACE_SECONDS: value });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gatehouse: [^\n]*SHUTDOWN_GRACE_SECONDS[^\n]*\n$/);
  });
});
