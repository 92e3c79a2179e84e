/**
 * Next.js App Router route handlers (Next 15 and later) protected by Gatehouse:
 *
 *   // app/invoices/[id]/route.ts
 *   export const GET = auth.route(async (request: NextRequest, { params, user, authorize }: RouteContext<{ id: string }>) => {
 *     const invoice = await invoices.find((await params).id);
 *     await authorize(invoice, 'ReadInvoice');
 *     return Response.json(invoice);
 *   }, { authorize: { policy: 'Customers' } });
 *
 * Next calls a route's `GET`, `POST`… with the request and a context whose `params` is a promise
 * of the dynamic segments' values. The types here are that shape, written out: Gatehouse does not
 * import `next`, whose own `NextRequest` is a `Request` and fits.
 */
import type { Caller, Protection, WebGatehouse } from './gatehouse-web.ts';

/** The second argument Next gives a route handler: the values of the route's dynamic segments. */
export interface NextRouteContext<Params> {
  readonly params: Promise<Params>;
}

/** What a protected route handler gets beside the request: Next's context, the caller and its resource check. */
export type RouteContext<Params = Record<string, never>> = NextRouteContext<Params> & Caller;

export type NextRouteHandler<R extends Request, Params> = (request: R, context: RouteContext<Params>) => Response | Promise<Response>;

/** `handler` as Next calls a route handler, behind `protect`'s decision. */
export function nextRoute<Params, R extends Request>(
  protect: WebGatehouse['protect'],
  handler: NextRouteHandler<R, Params>,
  protection: Protection | undefined,
): (request: R, context: NextRouteContext<Params>) => Promise<Response> {
  return protect<R, [NextRouteContext<Params>]>((request, caller, context) => handler(request, { ...context, ...caller }), protection);
}
