/**
 * Form bodies a hostile client sends to the Web-standard handler: a file part, more fields than
 * any form has, a malformed multipart body and a body past the limit (streamed, no length
 * declared) are refused before antiforgery and before the endpoint runs; a url-encoded form with
 * its antiforgery token reaches the endpoint without the token field.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AntiforgeryTokens } from '../../src/endpoints/antiforgery.ts';
import { CookieList } from '../../src/endpoints/cookies.ts';
import { defineEndpoint } from '../../src/endpoints/endpoint.ts';
import { fetchHandler } from '../../src/endpoints/fetch-handler.ts';
import { PolicyEvaluator } from '../../src/security/authentication/index.ts';
import { AuthenticationSchemeProvider } from '../../src/security/authentication/authentication-scheme-provider.ts';
import { AuthorizationService, PolicyProvider } from '../../src/security/authorization/index.ts';

const antiforgery = { secret: randomBytes(32).toString('base64url'), production: false };
const received: unknown[] = [];
const echo = defineEndpoint({
  method: 'POST',
  path: '/form',
  authorization: { allowAnonymous: true },
  forms: true,
  handle: async (request) => {
    received.push(request.body);
    return { status: 200, body: { fields: Object.keys(request.body as object).sort() } };
  },
});
const handle = fetchHandler([echo], {
  policies: new PolicyProvider({ policies: {} }),
  // An anonymous endpoint reads no credentials: no scheme is ever asked.
  evaluator: new PolicyEvaluator(new AuthenticationSchemeProvider([], () => null), new AuthorizationService()),
  trustedOrigins: ['http://gh.test'],
  antiforgery,
  bodyLimitBytes: 4_096,
});

function multipart(parts: string[], boundary = 'xyz'): Request {
  const body = `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
  return new Request('http://gh.test/form', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
}
const field = (name: string, value: string) => `Content-Disposition: form-data; name="${name}"\r\n\r\n${value}`;

describe('form bodies through fetchHandler', () => {
  it('refuses a file part, 51 fields and a malformed body with 400, and never runs the endpoint', async () => {
    const file = await handle(multipart([field('email', 'a@example.com'), 'Content-Disposition: form-data; name="f"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\nhello']));
    expect(file.status).toBe(400);
    expect(await file.json()).toMatchObject({ code: 'GH_VALIDATION_FAILED', errors: { body: ['File uploads are not accepted.'] } });

    const many = await handle(multipart(Array.from({ length: 51 }, (_, i) => field(`f${i}`, 'v'))));
    expect(many.status).toBe(400);
    expect(await many.json()).toMatchObject({ errors: { body: ['At most 50 fields are accepted.'] } });

    const malformed = await handle(new Request('http://gh.test/form', { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: '--abc\r\nnot a part' }));
    expect(malformed.status).toBe(400);
    expect(received).toEqual([]);
  });

  it('stops reading a streamed body past the limit with 413', async () => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1_024;
        if (sent > 1_024 * 1_024) return controller.close();
        controller.enqueue(new TextEncoder().encode('a='.padEnd(1_024, 'b')));
      },
    });
    const request = new Request('http://gh.test/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: stream, duplex: 'half' } as RequestInit);
    const answer = await handle(request);
    expect(answer.status).toBe(413);
    // Read up to the limit and a little past it, not the megabyte on offer.
    expect(sent).toBeLessThan(64 * 1_024);
    expect(received).toEqual([]);
  });

  it('hands a url-encoded form with its antiforgery token to the endpoint, the token field removed', async () => {
    const cookies = new CookieList();
    const token = new AntiforgeryTokens(antiforgery).requestToken({ headers: {} }, null, cookies);
    const cookie = `${cookies.cookies[0]!.name}=${cookies.cookies[0]!.value}`;
    const body = new URLSearchParams({ email: 'a@example.com', __RequestVerificationToken: token });
    const answer = await handle(new Request('http://gh.test/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body }));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ fields: ['email'] });
    const forged = await handle(new Request('http://gh.test/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: 'email=a%40example.com&__RequestVerificationToken=forged' }));
    expect(forged.status).toBe(400);
    expect(received).toHaveLength(1);
  });
});
