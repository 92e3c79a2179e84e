import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OwnershipRequirement } from '../policies/ownership.ts';
import { GatehouseError } from 'gatehouse-auth';
import type { Document, DocumentStore } from '../storage/document-store.ts';
import { DocumentInput, IdParams } from './schemas.ts';

type DocumentInput = Static<typeof DocumentInput>;
type ById = { Params: Static<typeof IdParams> };
const ownership = new OwnershipRequirement();

/** Documents belong to the user who created them; every read and write is a resource check `Ownership`. */
export async function documentRoutes(app: FastifyInstance, { documents }: { documents: DocumentStore }): Promise<void> {
  const { clock } = app.gatehouse;

  /** The document, after the resource check: 404 when unknown, 403 when not the caller's. */
  async function ownedDocument(request: FastifyRequest<ById>): Promise<Document> {
    const document = await documents.find(Number(request.params.id));
    if (!document) throw GatehouseError.notFound('There is no such document.');
    await request.authorize(document, ownership);
    return document;
  }

  app.post<{ Body: DocumentInput }>('/documents', { schema: { body: DocumentInput }, config: { successStatus: 201 } }, async (request, reply) => {
    const { title, body } = request.body;
    const document = await documents.create({ ownerId: Number(request.user.subject), title, body, createdAt: clock.now() });
    return reply.code(201).send(document);
  });

  app.get<ById>('/documents/:id', { schema: { params: IdParams } }, async (request) => ownedDocument(request));

  app.put<ById & { Body: DocumentInput }>('/documents/:id', { schema: { params: IdParams, body: DocumentInput } }, async (request) => {
    const document = await ownedDocument(request);
    const updated = await documents.update(document.id, request.body);
    if (!updated) throw GatehouseError.notFound('There is no such document.');
    return updated;
  });

  app.delete<ById>('/documents/:id', { schema: { params: IdParams }, config: { successStatus: 204 } }, async (request, reply) => {
    const document = await ownedDocument(request);
    await documents.delete(document.id);
    return reply.code(204).send();
  });
}
