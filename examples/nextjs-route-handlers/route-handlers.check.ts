/**
 * Compiled, never run: each route file's exports are what Next.js accepts of a route handler
 * (the shape `next build` checks, with its `NextRequest` and the route's `params`), and a
 * misspelt policy name does not compile.
 */
import type { NextRequest } from 'next/server';
import { auth } from './lib/auth.ts';
import type * as identity from './app/identity/[...gatehouse]/route.ts';
import type * as jwks from './app/.well-known/jwks.json/route.ts';
import type * as health from './app/health/route.ts';
import type * as documents from './app/documents/route.ts';
import type * as document from './app/documents/[id]/route.ts';
import type * as graphql from './app/graphql/route.ts';

/** A route handler as Next calls it: the request, and a promise of the route's dynamic segments. */
type RouteHandler<Params> = (request: NextRequest, context: { params: Promise<Params> }) => Promise<Response | void> | Response | void;
type RouteModule<Params> = Partial<Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS', RouteHandler<Params>>>;

export const routes: [
  RouteModule<{ gatehouse: string[] }>,
  RouteModule<Record<string, never>>,
  RouteModule<Record<string, never>>,
  RouteModule<Record<string, never>>,
  RouteModule<{ id: string }>,
  RouteModule<Record<string, never>>,
] = [{} as typeof identity, {} as typeof jwks, {} as typeof health, {} as typeof documents, {} as typeof document, {} as typeof graphql];

// @ts-expect-error 'Editor' is not a declared policy name ('Editors' is).
export const misspelt = auth.route(() => new Response(null), { authorize: { policy: 'Editor' } });

export const resourceCheck = auth.route(async (_request, { authorize }) => {
  // @ts-expect-error 'ReadDocuments' is not a declared policy name.
  await authorize({}, 'ReadDocuments');
  return new Response(null);
});
