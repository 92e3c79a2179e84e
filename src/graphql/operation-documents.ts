import type { GraphQLErrorCode } from './errors.ts';
import type { RefusedRequest } from './graphql-service.ts';
import type { PersistedQueries } from './persisted-queries.ts';
import { DOCUMENT_HASH, documentHash, type TrustedDocuments } from './trusted-documents.ts';

/** A request as a transport read it: the query may be left out when `extensions.persistedQuery` names it. */
export interface IncomingRequest {
  readonly query?: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly extensions?: Record<string, unknown>;
}

/** The document a request runs, and the hash to register it under once it has passed the limits. */
export interface NamedDocument {
  readonly kind: 'document';
  readonly query: string;
  readonly register?: string;
}

/** Where documents may come from besides the request's own text. */
export interface DocumentSources {
  /** Automatic persisted queries; null when they are off. */
  readonly persisted: PersistedQueries | null;
  /** With trusted documents, only those run (and nothing is registered). */
  readonly trusted: TrustedDocuments | null;
}

/** Apollo's messages, which clients match on (urql by the message alone). */
const NOT_FOUND_MESSAGE = 'PersistedQueryNotFound';
const NOT_SUPPORTED_MESSAGE = 'PersistedQueryNotSupported';

/**
 * Which document a request runs: its text, or the one `extensions.persistedQuery`
 * (`{version: 1, sha256Hash}`) names, by Apollo's protocol (docs/reference/graphql.md). A hash
 * with its query must match it (400); a hash alone must be known, else `PERSISTED_QUERY_NOT_FOUND`
 * with 200, as Apollo Server answers, and the client sends it again with the query. With trusted
 * documents, only listed documents run, by hash or by text; anything else is 400
 * `PERSISTED_QUERY_NOT_FOUND`, and nothing is registered.
 */
export class OperationDocuments {
  constructor(private readonly sources: DocumentSources) {}

  /**
   * `automatic`: whether this transport takes automatic persisted queries (HTTP does; graphql-ws
   * has no such protocol, and its `extensions.persistedQuery` then only names trusted documents).
   */
  async documentOf(request: IncomingRequest, { automatic }: { automatic: boolean }): Promise<NamedDocument | RefusedRequest> {
    const { trusted } = this.sources;
    const persisted = automatic ? this.sources.persisted : null;
    const named = request.extensions?.persistedQuery;
    const text = request.query === undefined || request.query.trim() === '' ? undefined : request.query;
    if (named !== undefined && named !== null && (persisted !== null || trusted !== null)) {
      const hash = hashOf(named, trusted !== null);
      if (typeof hash !== 'string') return hash;
      if (text !== undefined && documentHash(text) !== hash) return refusal(400, 'BAD_REQUEST', 'The persisted query hash is not the SHA-256 of the query.');
      if (trusted !== null) {
        const listed = trusted.byHash(hash);
        return listed === undefined ? refusal(400, 'PERSISTED_QUERY_NOT_FOUND', NOT_FOUND_MESSAGE) : { kind: 'document', query: listed };
      }
      if (text !== undefined) return { kind: 'document', query: text, register: hash };
      const registered = await persisted!.get(hash);
      return registered === undefined ? refusal(200, 'PERSISTED_QUERY_NOT_FOUND', NOT_FOUND_MESSAGE) : { kind: 'document', query: registered };
    }
    if (text === undefined) return refusal(400, 'BAD_REQUEST', 'The request has no query.');
    if (trusted !== null && !trusted.has(text)) return refusal(400, 'PERSISTED_QUERY_NOT_FOUND', NOT_FOUND_MESSAGE);
    return { kind: 'document', query: text };
  }

  /** Registers a document that passed the limits and validation under the hash its request gave. */
  remember(document: NamedDocument): void {
    if (document.register !== undefined) this.sources.persisted?.remember(document.register, document.query);
  }
}

/**
 * The hash of `extensions.persistedQuery`, or the refusal of a malformed one. A version other
 * than 1 is not supported: 200 as Apollo Server answers it (the client then sends plain queries),
 * 400 with trusted documents, where nothing but a listed document runs.
 */
function hashOf(named: unknown, trusted: boolean): string | RefusedRequest {
  if (typeof named !== 'object' || Array.isArray(named)) return refusal(400, 'BAD_REQUEST', 'extensions.persistedQuery must be an object.');
  const { version, sha256Hash } = named as Record<string, unknown>;
  if (version !== 1) return refusal(trusted ? 400 : 200, 'PERSISTED_QUERY_NOT_SUPPORTED', NOT_SUPPORTED_MESSAGE);
  if (typeof sha256Hash !== 'string' || !DOCUMENT_HASH.test(sha256Hash)) {
    return refusal(400, 'BAD_REQUEST', 'extensions.persistedQuery.sha256Hash must be the SHA-256 of the query, in lower-case hex.');
  }
  return sha256Hash;
}

function refusal(status: 200 | 400, code: GraphQLErrorCode, message: string): RefusedRequest {
  return { kind: 'refused', status, errors: [{ message, extensions: { code } }] };
}
