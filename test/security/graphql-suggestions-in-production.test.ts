/**
 * SEC-97 (suggestions in production): with introspection off, graphql-js's "Did you mean …?"
 * would still let anyone map the schema by guessing names (PortSwigger "GraphQL suggestions
 * enabled"). In production no error message suggests a field, argument or type, over HTTP or
 * WebSocket; the rest of the message and its code stay. Development keeps the suggestions.
 */
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { testEngines } from '../helpers/databases.ts';
import { json, startTestApp, type TestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://id.example.com',
  KEYRING_SECRET: 'production-keyring-secret-for-tests-0123456789',
  SMTP_URL: 'smtp://user:pass@127.0.0.1:2525',
};

/** Misspelt names graphql-js has a suggestion for: a field, an argument, a type. */
const GUESSES = ['{ posts { titel } }', '{ posts(frist: 1) { id } }', 'query($n: Itn) { posts(first: $n) { id } }', '{ post(id: "1") { athor { id } } }'];

interface Errors {
  errors: { message: string; extensions: { code: string } }[];
}

async function messages(instance: TestApp, query: string): Promise<Errors['errors']> {
  const response = await instance.app.inject({ method: 'POST', url: '/graphql', payload: { query } });
  expect(response.statusCode, query).toBe(400);
  return json<Errors>(response).errors;
}

describe.runIf(sqlite)('GraphQL suggestions (SEC-97)', () => {
  let production: TestApp;
  let development: TestApp;

  beforeAll(async () => {
    production = await startTestApp(await sqlite!.createDatabaseUrl(), { env: PRODUCTION });
    development = await startTestApp(await sqlite!.createDatabaseUrl());
  });
  afterAll(async () => {
    await production?.close();
    await development?.close();
    await sqlite?.dropAll();
  });

  it('names no schema member as a suggestion in production, keeping the message and code', async () => {
    for (const query of GUESSES) {
      const errors = await messages(production, query);
      expect(errors.length, query).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.message, query).not.toMatch(/did you mean/i);
        expect(error.message, query).toMatch(/^(Cannot query field|Unknown argument|Unknown type) "/);
        expect(error.extensions.code, query).toBe('GRAPHQL_VALIDATION_FAILED');
      }
    }
  });

  it('names none over a WebSocket in production either', async () => {
    const address = await production.app.listen({ host: '127.0.0.1', port: 0 });
    const client = createClient({ url: `${address.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    const errors = await new Promise<readonly { message: string }[]>((resolve, reject) => {
      client.subscribe({ query: '{ posts { titel } }' }, { next: () => reject(new Error('a result')), error: (error) => resolve(error as readonly { message: string }[]), complete: () => undefined });
    });
    await client.dispose();
    expect(errors[0]!.message).toBe('Cannot query field "titel" on type "Post".');
  });

  it('keeps them in development, where the schema is open anyway', async () => {
    const [error] = await messages(development, '{ posts { titel } }');
    expect(error!.message).toBe('Cannot query field "titel" on type "Post". Did you mean "title"?');
  });
});
