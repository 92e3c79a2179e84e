import { endpointAuthorization } from '../endpoints/authorize-endpoint.ts';
import { cookieSessionCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { EndpointResponse, ResponseCookie } from '../endpoints/endpoint.ts';
import { routeDecisions } from '../endpoints/route-decision.ts';
import type { ReceivedRequest } from '../endpoints/web-exchange.ts';
import type { Gatehouse } from '../gatehouse.ts';
import { gatehouseServices } from '../gatehouse-internals.ts';
import type { ClaimsPrincipal } from '../security/claims/index.ts';

/** The caller of one GraphQL request over HTTP, or the answer that refuses the request. */
export type OperationCaller =
  | { readonly kind: 'caller'; readonly user: ClaimsPrincipal; readonly renewed?: ResponseCookie }
  | { readonly kind: 'refused'; readonly answer: EndpointResponse };

/**
 * Who sends a GraphQL request over HTTP, by the rules of docs/reference/graphql.md, on whichever
 * server executes it: valid credentials make the caller, invalid ones are 401, none leave it
 * anonymous (the fields carry their own policies); a request the auth cookie authenticated from
 * an origin not trusted with it is 403 (its POST could come from any site's form). A persistent
 * cookie's renewal comes back for the host to send, when it can.
 */
export function operationCallers(gatehouse: Gatehouse): (received: ReceivedRequest) => Promise<OperationCaller> {
  const { config, verdicts } = gatehouseServices(gatehouse);
  // The GraphQL path as a route: anonymous, but reading credentials. No login page: an API request is never redirected.
  const path = endpointAuthorization(
    { policies: gatehouse.policies, evaluator: gatehouse.evaluator, verdicts },
    { authorization: { allowAnonymous: true }, readCredentials: true },
  );
  const decide = routeDecisions({ cookieSession: cookieSessionCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock: gatehouse.clock }) });
  return async (received) => {
    const decision = await decide(path, received);
    if (decision.kind === 'refused') return { kind: 'refused', answer: decision.response };
    return decision.renewed === undefined ? { kind: 'caller', user: decision.principal } : { kind: 'caller', user: decision.principal, renewed: decision.renewed };
  };
}
