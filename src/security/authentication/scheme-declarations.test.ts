import { describe, expect, it } from 'vitest';
import { AuthenticateResult } from './authenticate-result.ts';
import type { AuthenticationHandler } from './authentication-handler.ts';
import { type AuthenticationRequest, requestPath } from './authentication-request.ts';
import { requestShapeSelector } from './authentication-scheme-provider.ts';
import { type CredentialSources, credentialHeaderNames, credentialPresence } from './credential-sources.ts';

const carriesCredential = (sources: CredentialSources, request: AuthenticationRequest) => credentialPresence(sources)(request);
import { concernsCredential } from './revocation-concerns.ts';
import { declaredCredentials, declaredRevocations } from './scheme-declarations.ts';
import { BEARER_CREDENTIALS, BEARER_REVOCATIONS, BearerHandler } from './schemes/bearer/handler.ts';
import { API_KEY_CREDENTIALS } from './schemes/api-key/handler.ts';
import { CookieProtector } from './schemes/cookies/cookie-protector.ts';
import { CookiesHandler } from './schemes/cookies/handler.ts';
import { JwtBearerHandler } from './schemes/jwt-bearer/handler.ts';

const request = (headers: AuthenticationRequest['headers'], rest: Omit<AuthenticationRequest, 'headers'> = {}): AuthenticationRequest => ({ headers, ...rest });
const event = (kind: 'user' | 'user-deleted' | 'session' | 'family' | 'api-key' | 'signing-key', subject: string) => ({ kind, subject });

/** A scheme of an application's, declaring what it is given. */
function scheme(name: string, declarations: Pick<AuthenticationHandler, 'credentials' | 'revocations'> = {}): AuthenticationHandler {
  return { scheme: name, ...declarations, authenticate: () => AuthenticateResult.noResult(), challenge: () => ({}) };
}

describe('credentialPresence', () => {
  it('finds a declared header, whatever its value', () => {
    expect(carriesCredential({ headers: ['x-signature'] }, request({ 'x-signature': '' }))).toBe(true);
    expect(carriesCredential({ headers: ['x-signature'] }, request({ 'x-other': 'a' }))).toBe(false);
  });

  it('takes an Authorization header of the declared authentication scheme only, in any case, and a repeated one', () => {
    for (const authorization of ['Bearer abc', 'bearer abc', 'BEARER\tabc', 'Bearer', ['Bearer a', 'Basic b']]) {
      expect(carriesCredential(BEARER_CREDENTIALS, request({ authorization })), JSON.stringify(authorization)).toBe(true);
    }
    for (const authorization of ['Basic YWxpY2U6cGFzcw==', 'Bearerish x', 'Bear']) {
      expect(carriesCredential(BEARER_CREDENTIALS, request({ authorization })), authorization).toBe(false);
    }
    expect(carriesCredential({ headers: ['authorization'] }, request({ authorization: 'Basic abc' }))).toBe(true);
  });

  it('finds a declared cookie, parsed or in the Cookie header, and no other', () => {
    const sources = { cookies: ['session'] };
    expect(carriesCredential(sources, request({}, { cookies: { session: 'x' } }))).toBe(true);
    expect(carriesCredential(sources, request({ cookie: 'theme=dark; session=x' }))).toBe(true);
    expect(carriesCredential(sources, request({ cookie: 'mysession=x' }))).toBe(false);
  });
});

describe('credentialHeaderNames', () => {
  it('joins the declared headers, in lower case, and the Cookie header for schemes that read cookies', () => {
    expect(credentialHeaderNames([BEARER_CREDENTIALS, API_KEY_CREDENTIALS, { headers: ['X-Signature', 'authorization'] }, { cookies: ['s'] }])).toEqual([
      'authorization',
      'x-api-key',
      'x-signature',
      'cookie',
    ]);
  });
});

describe('requestShapeSelector', () => {
  it('chooses the first scheme whose declared credential the request carries, else the fallback', () => {
    const select = requestShapeSelector(
      [
        { scheme: 'Hmac', credentials: { headers: ['x-signature'] } },
        { scheme: 'Bearer', credentials: BEARER_CREDENTIALS },
      ],
      'Cookies',
    );
    expect(select(request({ 'x-signature': 's', authorization: 'Bearer t' }))).toBe('Hmac');
    expect(select(request({ authorization: 'Bearer t' }))).toBe('Bearer');
    expect(select(request({ authorization: 'Basic t' }))).toBe('Cookies');
  });
});

describe('the declarations of a scheme', () => {
  const cookies = new CookiesHandler({ validator: { validate: async () => ({ valid: false }) }, protector: new CookieProtector('test', 'gh.auth'), cookieName: '__Host-gh.auth' });

  it('are the built-in schemes\' own', () => {
    expect(declaredCredentials(cookies)).toEqual({ cookies: ['__Host-gh.auth'] });
    expect(declaredCredentials(new BearerHandler({ validate: () => ({ valid: false, reason: 'no' }) }))).toBe(BEARER_CREDENTIALS);
  });

  it('are, for a scheme that declares nothing, its built-in namesake\'s, else none', () => {
    expect(declaredCredentials(scheme('Bearer'))).toBe(BEARER_CREDENTIALS);
    expect(declaredRevocations(scheme('Bearer'))).toBe(BEARER_REVOCATIONS);
    expect(declaredCredentials(scheme('Hmac'))).toEqual({});
    expect(declaredRevocations(scheme('Hmac'))).toEqual({});
    expect(declaredCredentials(scheme('constructor'))).toEqual({});
  });

  it('leave an external issuer\'s tokens to no revocation event', () => {
    const external = new JwtBearerHandler({ scheme: 'Partner', secret: 'a shared secret of at least thirty-two bytes', issuer: 'https://issuer.example', audience: 'api' });
    expect(declaredRevocations(external)).toEqual({});
    expect(declaredCredentials(external)).toBe(BEARER_CREDENTIALS);
  });
});

describe('concernsCredential', () => {
  it('takes events of the credential\'s user, and events of any subject', () => {
    const concerns = { ofTheUser: ['user', 'session'] as const, ofAnySubject: ['api-key'] as const };
    expect(concernsCredential(concerns, event('user', '7'), '7')).toBe(true);
    expect(concernsCredential(concerns, event('user', '8'), '7')).toBe(false);
    expect(concernsCredential(concerns, event('user-deleted', '7'), '7')).toBe(false);
    expect(concernsCredential(concerns, event('api-key', 'k1'), '7')).toBe(true);
    expect(concernsCredential(concerns, event('session', '7'), null)).toBe(false);
    expect(concernsCredential({}, event('user', '7'), '7')).toBe(false);
  });
});

describe('requestPath', () => {
  it('is the target without its query string', () => {
    expect(requestPath(request({}, { url: '/reports/annual?year=2025' }))).toBe('/reports/annual');
    expect(requestPath(request({}, { url: '/reports' }))).toBe('/reports');
    expect(requestPath(request({}))).toBeUndefined();
  });
});
