/**
 * This instance's view of revocations is older than the contract allows (the feed has not read
 * the store for longer than `REVOCATION_FRESHNESS_MS`): a credential vouched for from memory
 * (an access token, a remembered API key) might have been revoked elsewhere meanwhile, so it is
 * neither accepted nor refused. Answered 503 `GH_REVOCATIONS_STALE` with `Retry-After`; the
 * instance recovers on its own at the feed's next successful read.
 */
export class RevocationsStaleError extends Error {
  constructor() {
    super('This instance has not heard of revocations for too long to vouch for a credential.');
    this.name = 'RevocationsStaleError';
  }
}
