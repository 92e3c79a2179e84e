import type { EndpointResponse } from '../endpoints/endpoint.ts';

/**
 * A request Gatehouse refused outside a protected handler (`authenticate`): a credential that
 * does not hold (401), or an unsafe request the auth cookie signed in from another site (403).
 * `errorResponse` answers it as the refusal of a protected handler, problem+json; a protected
 * handler that lets it through answers the same.
 */
export class RequestRefusal extends Error {
  /** 401 or 403. */
  readonly status: number;

  constructor(
    /** @internal The refusal's answer, rendered by the host. */
    readonly answer: EndpointResponse,
  ) {
    super(answer.status === 401 ? 'The request carries a credential that does not hold.' : 'The request is refused.');
    this.name = 'RequestRefusal';
    this.status = answer.status;
  }
}
