/** The application's documents, kept in memory: the example is about the route handlers, not a table. */
export interface Document {
  readonly id: string;
  /** The Gatehouse user id (`sub`) of the person who wrote it. */
  readonly authorId: string;
  readonly title: string;
}

const documents = new Map<string, Document>();
let lastId = 0;

export function createDocument(authorId: string, title: string): Document {
  const document: Document = { id: String(++lastId), authorId, title };
  documents.set(document.id, document);
  return document;
}

export function findDocument(id: string): Document | undefined {
  return documents.get(id);
}

export function allDocuments(): Document[] {
  return [...documents.values()];
}
