import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { inEnglish } from '../../../../i18n/phrase.ts';
import { tokenRefusalReason } from '../bearer/token-refusal.ts';
import { externalJwtBearer } from './handler.ts';

// The synchronous check of shared-secret tokens (hmac-jws.ts) against jose's `jwtVerify`, which
// it replaces for them: on every token below both must accept, or refuse for the same reason.

const ISSUER = 'https://issuer.example.test';
const AUDIENCE = 'https://api.example.test';
const SECRET = 'a shared secret of at least forty-eight bytes, for HS384';
const KEY = new TextEncoder().encode(SECRET);
const SKEW = 30;

const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const hmac = (alg: string, input: string, secret = SECRET) => createHmac(`sha${alg.slice(2)}`, secret).update(input).digest('base64url');

/** A token with this header and payload, signed as said (or with another secret). */
function token(header: unknown, payload: unknown, secret = SECRET): string {
  const alg = (header as { alg?: string }).alg;
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${hmac(typeof alg === 'string' && /^HS(256|384|512)$/.test(alg) ? alg : 'HS256', input, secret)}`;
}

const now = Math.floor(Date.now() / 1000);
const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'alice', iat: now, exp: now + 300 };
const without = (name: string) => Object.fromEntries(Object.entries(claims).filter(([key]) => key !== name));

const cases: Record<string, string> = {
  'a good HS256 token': token({ alg: 'HS256', typ: 'JWT' }, claims),
  'a good HS384 token': token({ alg: 'HS384' }, claims),
  'HS512, not allowed': token({ alg: 'HS512' }, claims, SECRET.padEnd(64, '!')),
  'alg none': `${encode({ alg: 'none' })}.${encode(claims)}.`,
  'no alg': token({ typ: 'JWT' }, claims),
  'another secret': token({ alg: 'HS256' }, claims, `${SECRET}, but another`),
  'a tampered payload': (() => { const [h, , s] = token({ alg: 'HS256' }, claims).split('.'); return `${h}.${encode({ ...claims, sub: 'mallory' })}.${s}`; })(),
  'expired': token({ alg: 'HS256' }, { ...claims, exp: now - SKEW - 5 }),
  'expired within the skew': token({ alg: 'HS256' }, { ...claims, exp: now - SKEW + 5 }),
  'not valid yet': token({ alg: 'HS256' }, { ...claims, nbf: now + SKEW + 5 }),
  'nbf within the skew': token({ alg: 'HS256' }, { ...claims, nbf: now + SKEW - 5 }),
  'no exp': token({ alg: 'HS256' }, without('exp')),
  'no iss': token({ alg: 'HS256' }, without('iss')),
  'no aud': token({ alg: 'HS256' }, without('aud')),
  'exp a string': token({ alg: 'HS256' }, { ...claims, exp: String(now + 300) }),
  'iat a string': token({ alg: 'HS256' }, { ...claims, iat: 'yesterday' }),
  'nbf null': token({ alg: 'HS256' }, { ...claims, nbf: null }),
  'another issuer': token({ alg: 'HS256' }, { ...claims, iss: 'https://other.example.test' }),
  'another audience': token({ alg: 'HS256' }, { ...claims, aud: 'https://other-api.example.test' }),
  'audiences, ours among them': token({ alg: 'HS256' }, { ...claims, aud: ['https://other-api.example.test', AUDIENCE] }),
  'audiences, ours not among them': token({ alg: 'HS256' }, { ...claims, aud: ['https://other-api.example.test'] }),
  'a payload that is a list': token({ alg: 'HS256' }, [claims]),
  'a payload that is not JSON': token({ alg: 'HS256' }, 'not json'),
  'a header that is not JSON': (() => { const input = `${encode('{alg')}.${encode(claims)}`; return `${input}.${hmac('HS256', input)}`; })(),
  'two parts': token({ alg: 'HS256' }, claims).split('.').slice(0, 2).join('.'),
  'four parts': `${token({ alg: 'HS256' }, claims)}.x`,
  'no signature': `${token({ alg: 'HS256' }, claims).split('.').slice(0, 2).join('.')}.`,
};

async function joseVerdict(jwt: string): Promise<string> {
  try {
    const { payload } = await jwtVerify(jwt, KEY, { algorithms: ['HS256', 'HS384'], issuer: [ISSUER], audience: [AUDIENCE], clockTolerance: SKEW, requiredClaims: ['exp'] });
    if (payload.iat !== undefined && payload.iat > now + SKEW) return 'The token is not valid yet.';
    return 'success';
  } catch (error) {
    return inEnglish(tokenRefusalReason(error));
  }
}

describe('shared-secret tokens, verified synchronously', () => {
  const handler = externalJwtBearer({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256', 'HS384'], cacheSize: 0 });
  const verdict = async (jwt: string) => {
    const result = await handler.authenticate({ headers: { authorization: `Bearer ${jwt}` } });
    return result.kind === 'fail' ? result.message : result.kind;
  };

  it.each(Object.entries(cases))('%s: as jose decides', async (_name, jwt) => {
    expect(await verdict(jwt)).toBe(await joseVerdict(jwt));
  });

  it('accepts the good tokens and refuses each bad one for its reason', async () => {
    expect(await verdict(cases['a good HS256 token']!)).toBe('success');
    expect(await verdict(cases['another secret']!)).toBe('The token signature is invalid.');
    expect(await verdict(cases['HS512, not allowed']!)).toBe('The token algorithm is not allowed.');
    expect(await verdict(cases.expired!)).toBe('The token expired.');
    expect(await verdict(cases['another audience']!)).toBe('The token has the wrong audience.');
  });

  it('accepts a good token the application does not check further', async () => {
    const result = await handler.authenticate({ headers: { authorization: `Bearer ${cases['a good HS256 token']}` } });
    expect(result).toMatchObject({ kind: 'success' });
  });

  it('refuses what jose would take but no issuer sends: crit and b64 headers, a signature not in canonical base64url', async () => {
    const good = cases['a good HS256 token']!;
    const crit = token({ alg: 'HS256', crit: ['b64'], b64: true }, claims);
    // A final character with unused low bits set decodes to the same bytes: the same signature, another text.
    const signature = good.split('.')[2]!;
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const twin = alphabet[alphabet.indexOf(last) ^ 1]!;
    const noncanonical = `${good.slice(0, -1)}${twin}`;
    expect(await verdict(crit)).toBe('The token is malformed.');
    expect(await verdict(noncanonical)).not.toBe('success');
  });

  it("refuses a token issued beyond the skew in the future, and whatever the application's validate refuses", async () => {
    expect(await verdict(token({ alg: 'HS256' }, { ...claims, iat: now + SKEW + 60 }))).toBe('The token is not valid yet.');
    const strict = externalJwtBearer({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE, validate: (payload) => payload.sub === 'bob' });
    const asyncStrict = externalJwtBearer({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE, validate: async () => { throw new Error('down'); } });
    const bearer = { headers: { authorization: `Bearer ${cases['a good HS256 token']}` } };
    expect(await strict.authenticate(bearer)).toMatchObject({ kind: 'fail', message: 'The token was refused.' });
    expect(await asyncStrict.authenticate(bearer)).toMatchObject({ kind: 'fail', message: 'The token was refused.' });
  });
});
