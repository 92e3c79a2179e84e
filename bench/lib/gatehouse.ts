import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { runToCompletion } from './processes.ts';

/** A port free right now on `host` (the OS picks it). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not pick a free port'));
      });
    });
  });
}

/**
 * Node's arguments for the service exactly as `npm start` runs it (package.json's start script,
 * `node <arguments>`), so that the bench measures the service with the same runtime flags.
 */
export function serviceArguments(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (scripts?.start ?? '').trim().split(/\s+/);
  if (words[0] !== 'node' || words.length < 2) throw new Error(`package.json's start script is not "node <arguments>": ${JSON.stringify(scripts?.start)}`);
  return words.slice(1);
}

/** Runs `bin/gatehouse.js <args>` against the bench's database; answers the last line it printed. */
export async function gatehouseCli(root: string, env: NodeJS.ProcessEnv, args: readonly string[]): Promise<string> {
  const { stdout } = await runToCompletion(`gatehouse ${args.slice(0, 2).join(' ')}`, process.execPath, [join(root, 'bin/gatehouse.js'), ...args], {
    env,
    cwd: root,
  });
  const line = stdout.trim().split('\n').pop()?.trim() ?? '';
  if (line === '' || /\s/.test(line)) throw new Error(`gatehouse ${args.slice(0, 2).join(' ')}: unexpected output:\n${stdout}`);
  return line;
}

/** `POST /auth/token` with a password; answers the access token. */
export async function obtainAccessToken(baseUrl: string, email: string, password: string): Promise<string> {
  const response = await fetch(new URL('/auth/token', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /auth/token answered ${response.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { accessToken?: unknown; tokenType?: unknown };
  if (typeof body.accessToken !== 'string' || body.accessToken === '') throw new Error(`POST /auth/token gave no accessToken: ${text.slice(0, 500)}`);
  return body.accessToken;
}

/** Posts the GraphQL scenario reads (bench/README.md: a store holding 100 posts), made through the API. */
export async function seedPosts(baseUrl: string, accessToken: string, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    const response = await fetch(new URL('/graphql', baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({
        query: 'mutation($title: String!, $body: String!) { createPost(title: $title, body: $body) { id } }',
        variables: { title: `Post ${i}`, body: `The body of post ${i}.` },
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (response.status !== 200 || text.includes('"errors"')) throw new Error(`seeding post ${i}: ${response.status} ${text.slice(0, 300)}`);
  }
}
