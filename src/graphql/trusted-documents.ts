import { createHash } from 'node:crypto';

/** A document's name in a persisted-query request: its SHA-256, 64 lower-case hex digits (Apollo's protocol). */
export const DOCUMENT_HASH = /^[0-9a-f]{64}$/;

/** The SHA-256 of a document's text, in hex: what `extensions.persistedQuery.sha256Hash` names. */
export function documentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The documents registered at build time (`GRAPHQL_TRUSTED_DOCUMENTS`, or the `trustedDocuments`
 * option): the only ones that run, named by their hash or sent as their exact text. This is the
 * safelisting of GraphQL Yoga's and Apollo's production mode: an operation built by someone else
 * than the application's own clients never reaches parse or execution.
 */
export class TrustedDocuments {
  private readonly texts: ReadonlySet<string>;

  private constructor(private readonly byHashes: ReadonlyMap<string, string>) {
    this.texts = new Set(byHashes.values());
  }

  /**
   * The documents of a manifest `{"<sha256>": "<document>"}`; throws, saying what is wrong, when
   * it is not an object of documents or a key is not the SHA-256 of its document.
   */
  static from(manifest: unknown): TrustedDocuments {
    if (manifest instanceof Map) manifest = Object.fromEntries(manifest);
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) throw new Error('it is not an object of documents');
    const documents = new Map<string, string>();
    for (const [hash, text] of Object.entries(manifest)) {
      if (typeof text !== 'string' || text.trim() === '') throw new Error(`the value of ${hash.slice(0, 80)} is not a document`);
      if (!DOCUMENT_HASH.test(hash)) throw new Error(`"${hash.slice(0, 80)}" is not a SHA-256 in lower-case hex`);
      if (documentHash(text) !== hash) throw new Error(`${hash} is not the SHA-256 of its document`);
      documents.set(hash, text);
    }
    if (documents.size === 0) throw new Error('it lists no document (every operation would be refused)');
    return new TrustedDocuments(documents);
  }

  get size(): number {
    return this.byHashes.size;
  }

  /** The listed document of this hash, if any. */
  byHash(hash: string): string | undefined {
    return this.byHashes.get(hash);
  }

  /** Whether this exact text is a listed document. */
  has(text: string): boolean {
    return this.texts.has(text);
  }

  /** Every listed document with its hash (checked against the schema at start). */
  entries(): IterableIterator<[string, string]> {
    return this.byHashes.entries();
  }
}
