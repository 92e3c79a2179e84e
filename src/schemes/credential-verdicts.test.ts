import { describe, expect, it } from 'vitest';
import { ManualClock } from '../platform/clock.ts';
import { RevocationList } from '../revocation/revocation-list.ts';
import { RevocationsStaleError } from '../revocation/revocations-stale-error.ts';
import {
  AuthenticateResult,
  type AuthenticationHandler,
  type AuthenticationRequest,
  BEARER_CREDENTIALS,
  BEARER_REVOCATIONS,
} from '../security/authentication/index.ts';
import { Claim, ClaimsIdentity, ClaimsPrincipal } from '../security/claims/index.ts';
import type { RevocationEvent } from '../store/ports.ts';
import { CredentialVerdicts } from './credential-verdicts.ts';

const START = Date.UTC(2026, 0, 1);
const principal = (sub: string) => new ClaimsPrincipal([new ClaimsIdentity([new Claim('sub', sub)], 'Bearer')]);
let ids = 0;
const event = (kind: RevocationEvent['kind'], subject: string): RevocationEvent => ({ id: ++ids, kind, subject, claimsStamp: null, securityStamp: null, at: START });
const bearer = (token: string): AuthenticationRequest => ({ headers: { authorization: `Bearer ${token}` } });

/** A Bearer-like scheme that vouches for `token-<sub>` until `expiresAt`, counting its calls. */
function countingScheme(expiresAt = START + 60_000): AuthenticationHandler & { calls: number } {
  const handler = {
    scheme: 'Bearer',
    credentials: BEARER_CREDENTIALS,
    revocations: BEARER_REVOCATIONS,
    calls: 0,
    authenticate(request: AuthenticationRequest) {
      handler.calls++;
      const sub = String(request.headers.authorization).replace('Bearer token-', '');
      return Promise.resolve(AuthenticateResult.success('Bearer', principal(sub), expiresAt));
    },
    challenge: () => ({}),
  };
  return handler;
}

function setUp(expiresAt?: number) {
  const clock = new ManualClock(START);
  let monotonic = 0;
  const revocations = new RevocationList(() => monotonic);
  const verdicts = new CredentialVerdicts(revocations, clock);
  const inner = countingScheme(expiresAt);
  const handler = verdicts.remembering(inner);
  return { clock, revocations, verdicts, inner, handler, elapse: (ms: number) => (monotonic += ms) };
}

describe('CredentialVerdicts', () => {
  it('answers a credential its scheme accepted before without asking the scheme again', async () => {
    const { inner, handler } = setUp();
    const first = await handler.authenticate(bearer('token-7'));
    const again = await handler.authenticate(bearer('token-7'));
    expect(again).toBe(first);
    expect(inner.calls).toBe(1);
    await handler.authenticate(bearer('token-8'));
    expect(inner.calls).toBe(2);
  });

  it('forgets the credentials of the user an event of a declared kind names, and no other', async () => {
    const { revocations, inner, handler } = setUp();
    await handler.authenticate(bearer('token-7'));
    await handler.authenticate(bearer('token-8'));
    revocations.apply(event('user', '7'));
    await handler.authenticate(bearer('token-7'));
    await handler.authenticate(bearer('token-8'));
    expect(inner.calls).toBe(3);
    // A kind the scheme does not declare concerns none of its credentials.
    revocations.apply(event('session', '8'));
    await handler.authenticate(bearer('token-8'));
    expect(inner.calls).toBe(3);
  });

  it('forgets every credential of the scheme at an event of a kind that concerns any subject', async () => {
    const { revocations, inner, handler } = setUp();
    await handler.authenticate(bearer('token-7'));
    await handler.authenticate(bearer('token-8'));
    revocations.apply(event('signing-key', 'kid-1'));
    await handler.authenticate(bearer('token-7'));
    await handler.authenticate(bearer('token-8'));
    expect(inner.calls).toBe(4);
  });

  it('does not remember a verdict given while an event was applied', async () => {
    const { revocations, inner, handler } = setUp();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = inner.authenticate.bind(inner);
    inner.authenticate = async (request) => {
      await gate;
      return slow(request);
    };
    const pending = handler.authenticate(bearer('token-7'));
    revocations.apply(event('user', '7'));
    release();
    await pending;
    await handler.authenticate(bearer('token-7'));
    expect(inner.calls).toBe(2);
  });

  it('forgets what a change seen before its event concerns (a signing key leaving the ring)', async () => {
    const { verdicts, inner, handler } = setUp();
    await handler.authenticate(bearer('token-7'));
    verdicts.forget({ kind: 'signing-key', subject: 'kid-1' });
    await handler.authenticate(bearer('token-7'));
    expect(inner.calls).toBe(2);
  });

  it("lets its scheme judge a credential past the credential's end", async () => {
    const { clock, inner, handler } = setUp(START + 1_000);
    await handler.authenticate(bearer('token-7'));
    clock.advance(999);
    await handler.authenticate(bearer('token-7'));
    expect(inner.calls).toBe(1);
    clock.advance(1);
    await handler.authenticate(bearer('token-7'));
    expect(inner.calls).toBe(2);
  });

  it('vouches for nothing from memory while the revocation view is stale', async () => {
    const { revocations, handler, elapse } = setUp();
    revocations.followFeed();
    revocations.caughtUp(0);
    await handler.authenticate(bearer('token-7'));
    elapse(5_001);
    await expect(handler.authenticate(bearer('token-7'))).rejects.toThrow(RevocationsStaleError);
  });

  it('keeps the newest verdicts when full, and remembers no failure nor a repeated header', async () => {
    const clock = new ManualClock(START);
    const verdicts = new CredentialVerdicts(new RevocationList(), clock, 2);
    const inner = countingScheme();
    const handler = verdicts.remembering(inner);
    for (const sub of ['1', '2', '3']) await handler.authenticate(bearer(`token-${sub}`));
    expect(verdicts.size).toBe(2);
    await handler.authenticate(bearer('token-1'));
    expect(inner.calls).toBe(4);
    await handler.authenticate({ headers: { authorization: ['Bearer token-2', 'Bearer token-2'] } });
    expect(inner.calls).toBe(5);
    inner.authenticate = () => Promise.resolve(AuthenticateResult.fail('Bearer', 'bad'));
    await handler.authenticate(bearer('token-9'));
    expect(verdicts.size).toBe(2);
  });

  describe('recallFor, read by a host without waiting', () => {
    it('answers what the scheme accepted before, and nothing it has not judged', async () => {
      const { verdicts, inner, handler } = setUp();
      expect(verdicts.recallFor(handler, bearer('token-7'))).toBeUndefined();
      const first = await handler.authenticate(bearer('token-7'));
      expect(verdicts.recallFor(handler, bearer('token-7'))).toBe(first);
      expect(verdicts.recallFor(handler, bearer('token-8'))).toBeUndefined();
      expect(verdicts.recallFor(handler, { headers: {} })).toBeUndefined();
      expect(inner.calls).toBe(1);
    });

    it('answers nothing for a scheme that does not remember, though it judged the same credential', async () => {
      const { verdicts, inner, handler } = setUp();
      await handler.authenticate(bearer('token-7'));
      expect(verdicts.recallFor(inner, bearer('token-7'))).toBeUndefined();
    });

    it('forgets at the events that concern the credential, and past its end', async () => {
      const { clock, revocations, verdicts, handler } = setUp(START + 1_000);
      await handler.authenticate(bearer('token-7'));
      revocations.apply(event('user', '7'));
      expect(verdicts.recallFor(handler, bearer('token-7'))).toBeUndefined();
      await handler.authenticate(bearer('token-7'));
      clock.advance(1_000);
      expect(verdicts.recallFor(handler, bearer('token-7'))).toBeUndefined();
    });

    it('throws while the revocation view is stale, as the scheme would refuse to vouch', async () => {
      const { revocations, verdicts, handler, elapse } = setUp();
      revocations.followFeed();
      revocations.caughtUp(0);
      await handler.authenticate(bearer('token-7'));
      elapse(5_001);
      expect(() => verdicts.recallFor(handler, bearer('token-7'))).toThrow(RevocationsStaleError);
    });
  });
});
