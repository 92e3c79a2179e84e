/**
 * `/documents`: every document for an editor (the `Editors` policy); any signed-in person may
 * write one (the route says nothing, so the fallback policy applies: an authenticated user).
 */
import type { NextRequest } from 'next/server';
import { GatehouseError } from 'gatehouse-auth';
import type { RouteContext } from 'gatehouse-auth/web';
import { auth } from '../../lib/auth.ts';
import { allDocuments, createDocument } from '../../lib/documents.ts';

export const GET = auth.route(() => Response.json({ documents: allDocuments() }), { authorize: { policy: 'Editors' } });

export const POST = auth.route(async (request: NextRequest, { user }: RouteContext) => {
  const { title } = (await request.json().catch(() => ({}))) as { title?: unknown };
  // Answered 400 problem+json, as Gatehouse's own endpoints answer a body that is not valid.
  if (typeof title !== 'string' || title === '') throw GatehouseError.validation({ title: ['A document needs a title.'] }, 'The request is not valid.');
  // The fallback policy guarantees a user (`sub`).
  const document = createDocument(user.subject!, title);
  return Response.json(document, { status: 201, headers: { location: `${request.nextUrl.pathname}/${document.id}` } });
});
