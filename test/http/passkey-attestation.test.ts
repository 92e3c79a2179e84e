/**
 * Passkey registration reaches no network (docs/passkeys.md, decision 0063): a signed-in user
 * registers, over HTTP, a response whose attestation statement carries a certificate chain of
 * their own making, its CRL distribution points and authority information access naming a
 * listener here — in every attestation format, and again with the chain's root trusted in the
 * library's global `SettingsService`. The listener must see no request at all, and the passkey
 * registers as an attestation "none" one (the statement is dropped unread) and signs in.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SettingsService } from '@simplewebauthn/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ATTESTATION_FORMATS, attestationStatement } from '../helpers/attestation-statements.ts';
import { cookiePair, signInWithCookie } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.ts';
import { json, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

const ORIGIN = 'http://localhost:3000';

/** An HTTP listener that records every request and answers each with a redirect to itself. */
async function startListener(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(302, { location: `/again${request.url}` }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe.runIf(sqlite)('passkey registration and attestation statements', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL: ORIGIN } });
  let listener: Awaited<ReturnType<typeof startListener>>;

  beforeEach(async () => {
    listener = await startListener();
  });
  afterEach(async () => {
    listener.server.closeAllConnections();
    await new Promise((resolve) => listener.server.close(resolve));
  });

  it.each(ATTESTATION_FORMATS)('registers a %s statement with the attacker’s chain as none: no URL of the chain is fetched', async (format) => {
    const service = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { cookie } = await signInWithCookie(ctx);
    const post = (path: string, body: object) =>
      fetch(`${service}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const optionsResponse = await post('/account/passkeys/options', {});
    expect(optionsResponse.status).toBe(200);
    const options = (await optionsResponse.json()) as Parameters<SoftwareAuthenticator['register']>[0];
    const authenticator = new SoftwareAuthenticator();
    // Many URLs, as a forged chain may name: each one a verifier that checks revocation would fetch.
    const urls = {
      crl: Array.from({ length: 20 }, (_, index) => `${listener.url}/crl/${format}/${index}`),
      aia: [`${listener.url}/aia/${format}`],
    };
    const response = await authenticator.registerAttested(options, { origin: ORIGIN }, (parts) => attestationStatement(format, parts, urls));
    const created = await post('/account/passkeys', { response, name: format });

    expect(listener.requests).toEqual([]);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ id: authenticator.credentialId, name: format });

    // The stored key is the attested credential's: it signs in.
    const login = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey/options' });
    const challengeCookie = cookiePair([login.headers['set-cookie']].flat().find((line) => line?.startsWith('gh.passkey='))!);
    const assertion = authenticator.assert(json<{ challenge: string; rpId: string }>(login), { origin: ORIGIN });
    const signedIn = await ctx.app.inject({ method: 'POST', url: '/account/login/passkey', headers: { cookie: challengeCookie }, payload: { response: assertion } });
    expect(signedIn.statusCode).toBe(200);
    expect(listener.requests).toEqual([]);
  });

  it.each(['packed', 'tpm', 'android-key', 'apple', 'fido-u2f'] as const)(
    'walks no %s chain even when the process trusts its root (roots set in the library’s SettingsService)',
    async (format) => {
      const trusted = SettingsService.getRootCertificates({ identifier: format });
      try {
        const { cookie } = await signInWithCookie(ctx);
        const options = json<Parameters<SoftwareAuthenticator['register']>[0]>(await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } }));
        const urls = { crl: [`${listener.url}/crl/${format}`], aia: [`${listener.url}/aia/${format}`] };
        const response = await new SoftwareAuthenticator().registerAttested(options, { origin: ORIGIN }, async (parts) => {
          const statement = await attestationStatement(format, parts, urls);
          const [leaf, root] = statement.attStmt.get('x5c') as Uint8Array<ArrayBuffer>[];
          SettingsService.setRootCertificates({ identifier: format, certificates: [root!] });
          // The trusted root is left out of the chain, as a genuine one leaves it (android-key's ends in it).
          return format === 'android-key' ? statement : { ...statement, attStmt: new Map([...statement.attStmt, ['x5c', [leaf!]]]) };
        });
        const created = await ctx.app.inject({ method: 'POST', url: '/account/passkeys', headers: { cookie }, payload: { response } });
        expect(listener.requests).toEqual([]);
        expect(created.statusCode).toBe(201);
      } finally {
        SettingsService.setRootCertificates({ identifier: format, certificates: trusted });
      }
    },
  );

  it('refuses an attestation object that is no CBOR map with authenticator data, however it is nested, with a 400', async () => {
    const { cookie } = await signInWithCookie(ctx);
    const cases = [
      Buffer.from('not cbor at all'),
      Buffer.of(0xa1, 0x63, ...Buffer.from('fmt'), 0x64, ...Buffer.from('none')), // {fmt: "none"}: no authData
      Buffer.concat([Buffer.alloc(30_000, 0x81), Buffer.of(0x00)]), // 30,000 nested arrays
    ];
    for (const attestationObject of cases) {
      const options = json<Parameters<SoftwareAuthenticator['register']>[0]>(await ctx.app.inject({ method: 'POST', url: '/account/passkeys/options', headers: { cookie } }));
      const response = new SoftwareAuthenticator().register(options, { origin: ORIGIN });
      const refused = await ctx.app.inject({
        method: 'POST',
        url: '/account/passkeys',
        headers: { cookie },
        payload: { response: { ...response, response: { ...response.response, attestationObject: attestationObject.toString('base64url') } } },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
    }
    expect(listener.requests).toEqual([]);
  });
});
