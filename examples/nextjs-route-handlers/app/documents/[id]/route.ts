/**
 * `/documents/:id`: for a signed-in person (the fallback policy), then checked against the
 * document itself: its author or an editor (`ReadDocument`); anyone else gets 403.
 */
import type { NextRequest } from 'next/server';
import { GatehouseError } from 'gatehouse-auth';
import type { RouteContext } from 'gatehouse-auth/web';
import { auth } from '../../../lib/auth.ts';
import { findDocument } from '../../../lib/documents.ts';

export const GET = auth.route(async (_request: NextRequest, { params, authorize }: RouteContext<{ id: string }>) => {
  const document = findDocument((await params).id);
  // Answered 404 problem+json, as Gatehouse's own errors are.
  if (document === undefined) throw GatehouseError.notFound('There is no such document.');
  await authorize(document, 'ReadDocument');
  return Response.json(document);
});
