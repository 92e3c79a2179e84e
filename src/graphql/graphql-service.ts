import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
  NoSchemaIntrospectionCustomRule,
  parse,
  createSourceEventStream,
  specifiedRules,
  TokenKind,
  validate,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Logger } from 'pino';
import type { OperationContext } from './context.ts';
import { type GraphQLErrorCode } from './errors.ts';
import { type DocumentLimits, exceededLimit, measureDocument } from './limits.ts';
import { countedWhileOpen, deliverEvents, mapEvents } from './event-stream.ts';
import type { LiveCount } from '../platform/metrics/live-count.ts';
import { BoundedCache, stringBytes } from './bounded-cache.ts';
import { ResultCache } from './result-cache.ts';
import { withoutSuggestions } from './suggestions.ts';
import { type IncomingRequest, OperationDocuments } from './operation-documents.ts';
import type { DataVersion } from '../store/ports.ts';
import { isViewerIndependent } from './viewer.ts';

/** What executing one operation of a prepared document needs. */
export interface OperationArgs {
  readonly document: DocumentNode;
  readonly contextValue: OperationContext;
  readonly variableValues?: Record<string, unknown> | null;
  readonly operationName?: string | null;
}

/** Takes a subscription's results, each as the JSON text of a formatted result. */
export type ResultSink = (payload: string) => void;

/** How a subscription's events are executed: each with a context of its own, and where results go. */
export interface EventDelivery {
  /** A fresh context per event: its loaders read afresh, and its caller as they are then. */
  readonly contextFor: () => OperationContext;
  /** When given, results shared by every subscriber (see `subscribeArgs`) are written here as JSON text. */
  readonly sink?: ResultSink;
}

/** One event's result as JSON text, and whether computing it read the caller (then it is no one else's). */
interface SerializedResult {
  readonly body: string;
  readonly personal: boolean;
}

/** A GraphQL request as HTTP (or a socket) carries it. */
export interface GraphQLRequest {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

/**
 * A request refused before execution: the HTTP status and the error. 200 only for an unknown or
 * unsupported persisted query, as Apollo Server answers them: the client sends the query then.
 */
export interface RefusedRequest {
  readonly kind: 'refused';
  readonly status: 200 | 400 | 405;
  readonly errors: readonly GraphQLFormattedError[];
}

/** An executed request: its result as JSON text, ready to send. */
export interface ExecutedRequest {
  readonly kind: 'executed';
  readonly body: string;
  /** False for a request error (variables that do not coerce): execution never started. */
  readonly hasData: boolean;
}

/** A result as clients see it (every error with a code). */
export interface FormattedResult {
  readonly data?: unknown;
  readonly errors?: readonly GraphQLFormattedError[];
}

/** A document ready to execute, and the kind of its operation. */
export interface PreparedRequest {
  readonly kind: 'prepared';
  readonly document: DocumentNode;
  readonly operation: 'query' | 'mutation' | 'subscription';
}

/** A prepared request with the request it runs (its query the document a persisted hash named). */
export interface ReadyRequest extends PreparedRequest {
  readonly request: GraphQLRequest;
}

/** A parsed and validated document, kept per query text (refusals are kept too). */
interface Prepared {
  readonly kind: 'prepared';
  readonly document: DocumentNode;
  /** Limits that depend on variables (a `first: $n`) are measured per request. */
  readonly usesVariables: boolean;
}

/** When a document is compiled: at its first execution (a subscription's events), or at its second (queries and mutations). */
const FIRST_RUN = 1;
const SECOND_RUN = 2;

/**
 * Documents kept parsed and validated, by their text: clients send the same few again and again.
 * Bounded in bytes (decision 0030); a document estimated above the largest entry is prepared
 * afresh each time it comes, like any document sent once.
 */
const DOCUMENTS_BUDGET_BYTES = 16 * 1024 * 1024;
const LARGEST_DOCUMENT_BYTES = 1024 * 1024;

export interface GraphQLServiceOptions {
  readonly schema: GraphQLSchema;
  readonly limits: DocumentLimits;
  /** Production: introspection is refused by validation. */
  readonly introspection: boolean;
  /** Production: false, and error messages name no schema field, argument or type as a suggestion. */
  readonly suggestions?: boolean;
  readonly logger: Logger;
  /** The store's data version: answers that are the same for every caller are kept while it holds. */
  readonly dataVersion?: DataVersion | null;
  /** Hears each subscription's stream open and close (the metrics' count of live subscriptions). */
  readonly liveSubscriptions?: LiveCount;
  /** Persisted queries and trusted documents. @default neither: every request sends its text */
  readonly documents?: OperationDocuments;
}

/**
 * Runs GraphQL requests with the order docs/reference/graphql.md asks for: parse, measure the document
 * against the limits, validate, execute. Errors carry `extensions.code`; anything unexpected is
 * masked and logged.
 */
export class GraphQLService {
  private readonly documents = new BoundedCache<Prepared | RefusedRequest>(DOCUMENTS_BUDGET_BYTES, LARGEST_DOCUMENT_BYTES);
  /**
   * Each validated document compiled by graphql-jit, per operation name: a function per query, no
   * walk of the tree. `undefined` until compiled; null when it cannot be.
   */
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null | undefined>>();
  private readonly rules;
  private readonly results: ResultCache;
  /** Where a request's document comes from: its text, a persisted query, a trusted document. */
  readonly operationDocuments: OperationDocuments;

  constructor(private readonly options: GraphQLServiceOptions) {
    this.rules = options.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    this.results = new ResultCache(options.dataVersion ?? null);
    this.operationDocuments = options.documents ?? new OperationDocuments({ persisted: null, trusted: null });
  }

  get schema(): GraphQLSchema {
    return this.options.schema;
  }

  /** Bytes held by the kept documents and answers, keys included. */
  cacheBytes(): { documents: number; results: number } {
    return { documents: this.documents.bytes, results: this.results.bytes };
  }

  /**
   * The request's document (its text, or the persisted query or trusted document it names),
   * prepared: a refusal, or the document to execute with the request it runs. A query sent with
   * its hash is registered only once it has passed the limits and validation.
   * `automaticPersisted`: whether the transport takes automatic persisted queries (HTTP, not graphql-ws).
   */
  async prepareRequest(incoming: IncomingRequest, allowed: readonly ('query' | 'mutation' | 'subscription')[], { automaticPersisted }: { automaticPersisted: boolean }): Promise<RefusedRequest | ReadyRequest> {
    const named = await this.operationDocuments.documentOf(incoming, { automatic: automaticPersisted });
    if (named.kind === 'refused') return named;
    const request: GraphQLRequest = {
      query: named.query,
      ...(incoming.variables ? { variables: incoming.variables } : {}),
      ...(incoming.operationName !== undefined ? { operationName: incoming.operationName } : {}),
    };
    const prepared = this.prepare(request, allowed);
    if (prepared.kind === 'refused') return prepared;
    this.operationDocuments.remember(named);
    return { ...prepared, request };
  }

  /** Why a document could not run whatever its operation and variables (parse, limits, validation); null when it can. */
  refusalOf(query: string): RefusedRequest | null {
    const prepared = this.prepared(query);
    return prepared.kind === 'refused' ? prepared : null;
  }

  /** Parses, measures and validates: a refusal, or the document to execute. */
  prepare(request: GraphQLRequest, allowed: readonly ('query' | 'mutation' | 'subscription')[]): RefusedRequest | PreparedRequest {
    const prepared = this.prepared(request.query);
    if (prepared.kind === 'refused') return prepared;
    const { document, usesVariables } = prepared;
    if (usesVariables) {
      const exceeded = exceededLimit(measureDocument(this.options.schema, document, request.variables ?? {}, this.options.limits), this.options.limits);
      if (exceeded !== null) return tooComplex(exceeded);
    }
    const operation = getOperationAST(document, request.operationName)?.operation;
    if (operation === undefined) return refused(400, 'GRAPHQL_VALIDATION_FAILED', 'Name the operation to run.');
    if (!allowed.includes(operation)) {
      return operation === 'subscription'
        ? refused(400, 'GRAPHQL_VALIDATION_FAILED', 'Subscriptions are served over WebSocket at this path.')
        : refused(405, 'GRAPHQL_VALIDATION_FAILED', 'Mutations are sent with POST.');
    }
    return { kind: 'prepared', document, operation };
  }

  /**
   * Executes a prepared query or mutation. A query whose result cannot depend on the caller is
   * answered from the result cache while the store is unchanged; what it computes is kept unless
   * it has errors or a resolver read the caller after all. The context is made only when the
   * document runs.
   */
  async execute(prepared: PreparedRequest, request: GraphQLRequest, contextFor: () => OperationContext): Promise<ExecutedRequest> {
    const { document } = prepared;
    const version = prepared.operation === 'query' && this.viewerIndependent(document) ? this.results.currentVersion() : null;
    const key = version === null ? null : resultKey(request, document);
    if (key !== null) {
      const kept = this.results.get(key);
      if (kept !== undefined) return { kind: 'executed', body: kept, hasData: true };
    }
    const context = contextFor();
    const result = this.format(
      await this.executeArgs({ document, contextValue: context, variableValues: request.variables ?? null, operationName: request.operationName ?? null }),
    );
    const body = JSON.stringify(result);
    if (key !== null && version !== null && result.errors === undefined && !context.viewerRead) this.results.set(key, version, body);
    return { kind: 'executed', body, hasData: result.data !== undefined };
  }

  /**
   * A query or mutation: graphql-js the first time a document and operation run, graphql-jit's
   * compiled query from the second on (or graphql-js when it cannot be compiled). Compiling costs
   * several executions' worth, so a document sent once (a query with its values inlined, a
   * one-off tool) is not compiled for nothing; one sent again pays it once.
   */
  async executeArgs(args: OperationArgs): Promise<ExecutionResult> {
    const compiled = this.compiledFor(args.document, args.operationName, SECOND_RUN);
    if (compiled === null) return (await execute({ schema: this.options.schema, ...args })) as ExecutionResult;
    return compiled.query(undefined, args.contextValue, args.variableValues ?? {});
  }

  /**
   * A subscription's stream of results. The subscription field's own `subscribe` runs with the
   * subscriber's context (its check of the caller included), so each subscriber has a source of
   * its own; each event is then executed (by the compiled query when there is one) with a fresh
   * context from `delivery.contextFor`.
   *
   * When the result cannot depend on who asks (viewer.ts) and the caller gives a `sink`, an event
   * is executed and serialized once for every subscriber of the same document and variables, and
   * each subscriber's sink gets that JSON text: with a thousand subscribers, one execution and
   * one serialization instead of a thousand. Should that one execution read the caller after all
   * (a resolver of the application's reads `context.user`), its result is no one else's: every
   * subscriber executes the event for itself, and the document is no longer shared. The returned
   * iterator then yields nothing; it ends when the source ends, and returning it unsubscribes.
   */
  async subscribeArgs(args: OperationArgs, delivery: EventDelivery): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const stream = await this.subscriptionStream(args, delivery);
    const live = this.options.liveSubscriptions;
    return live !== undefined && isAsyncIterable(stream) ? countedWhileOpen(stream as AsyncIterableIterator<ExecutionResult>, live) : stream;
  }

  private async subscriptionStream(args: OperationArgs, delivery: EventDelivery): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const { schema } = this.options;
    const source = await createSourceEventStream(schema, args.document, undefined, args.contextValue, args.variableValues ?? undefined, args.operationName ?? undefined);
    if (!isAsyncIterable(source)) return source as ExecutionResult;
    const run = this.eventRunner(args, delivery.contextFor);
    const { sink } = delivery;
    if (sink === undefined || !this.viewerIndependent(args.document)) return mapEvents(source, (event) => run(event).result);
    const key = `${args.operationName ?? ''}\0${JSON.stringify(args.variableValues ?? {})}`;
    const own = (event: unknown) => {
      const serialized = this.serialized(run(event));
      return serialized instanceof Promise ? serialized.then((result) => sink(result.body)) : sink(serialized.body);
    };
    return deliverEvents(source, (event) => {
      if (this.independent.get(args.document) === false) return own(event);
      const shared = this.sharedPayload(event, args.document, key, run);
      const send = (result: SerializedResult) => {
        if (!result.personal) return sink(result.body);
        this.independent.set(args.document, false);
        return own(event);
      };
      return shared instanceof Promise ? shared.then(send) : send(shared);
    });
  }

  /** Executes one event with a context of its own: graphql-jit's compiled query, or graphql-js. */
  private eventRunner(args: OperationArgs, contextFor: () => OperationContext): (event: unknown) => EventRun {
    const compiled = this.compiledFor(args.document, args.operationName);
    const variables = args.variableValues ?? {};
    return (event) => {
      const context = contextFor();
      const result =
        compiled === null
          ? (execute({ schema: this.options.schema, document: args.document, rootValue: event, contextValue: context, variableValues: variables, operationName: args.operationName ?? null }) as Promise<ExecutionResult> | ExecutionResult)
          : (compiled.query(event, context, variables) as Promise<ExecutionResult> | ExecutionResult);
      return { result, context };
    };
  }

  private readonly independent = new WeakMap<DocumentNode, boolean>();
  private readonly eventPayloads = new WeakMap<object, Map<DocumentNode, Map<string, Promise<SerializedResult> | SerializedResult>>>();

  private viewerIndependent(document: DocumentNode): boolean {
    let independent = this.independent.get(document);
    if (independent === undefined) this.independent.set(document, (independent = isViewerIndependent(this.options.schema, document)));
    return independent;
  }

  /** One execution and serialization per event, document and variables, shared by every subscriber that asks for it. */
  private sharedPayload(event: unknown, document: DocumentNode, key: string, run: (event: unknown) => EventRun): Promise<SerializedResult> | SerializedResult {
    if (typeof event !== 'object' || event === null) return this.serialized(run(event));
    let byDocument = this.eventPayloads.get(event);
    if (byDocument === undefined) this.eventPayloads.set(event, (byDocument = new Map()));
    let byKey = byDocument.get(document);
    if (byKey === undefined) byDocument.set(document, (byKey = new Map()));
    let payload = byKey.get(key);
    if (payload === undefined) byKey.set(key, (payload = this.serialized(run(event))));
    return payload;
  }

  private serialized({ result, context }: EventRun): Promise<SerializedResult> | SerializedResult {
    const done = (settled: ExecutionResult): SerializedResult => ({ body: JSON.stringify(this.format(settled)), personal: context.viewerRead });
    return result instanceof Promise ? result.then(done) : done(result);
  }

  /** The compiled query; with `SECOND_RUN`, null (graphql-js) the first time a document and operation are asked for. */
  private compiledFor(document: DocumentNode, operationName: string | null | undefined, when: typeof FIRST_RUN | typeof SECOND_RUN = FIRST_RUN): CompiledQuery | null {
    let byOperation = this.compiled.get(document);
    if (byOperation === undefined) this.compiled.set(document, (byOperation = new Map()));
    const key = operationName ?? '';
    let compiled = byOperation.get(key);
    if (compiled === undefined && when === SECOND_RUN && !byOperation.has(key)) {
      byOperation.set(key, undefined);
      return null;
    }
    if (compiled === undefined) {
      const result = compileQuery(this.options.schema, document, operationName ?? undefined);
      compiled = isCompiledQuery(result) ? result : null;
      byOperation.set(key, compiled);
    }
    return compiled;
  }

  /** Errors as clients see them: every one with a code, unexpected ones without their message. */
  format(result: ExecutionResult): FormattedResult {
    if (!result.errors?.length) return { data: result.data };
    // Without data, execution never started: the errors are the request's (variables that do not
    // coerce), whether or not the executor kept the scalar's own error as their cause (graphql-js
    // does, graphql-jit does not).
    const requestErrors = result.data === undefined;
    return { data: result.data, errors: result.errors.map((error) => this.formatError(error, requestErrors)) };
  }

  private formatError(error: GraphQLError, requestError: boolean): GraphQLFormattedError {
    const formatted = this.toJSON(error);
    const code = formatted.extensions?.code;
    if (typeof code === 'string') return formatted;
    if (requestError || error.originalError === undefined || error.originalError === null) {
      // graphql-js's own refusals of a request: wrong variables, an input that does not coerce.
      return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } };
    }
    this.options.logger.error({ err: error.originalError, path: error.path }, 'GraphQL resolver failed');
    return { message: 'Internal server error.', ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }

  /** An error as JSON, without graphql-js's suggestions when they are off. */
  private toJSON(error: GraphQLError): GraphQLFormattedError {
    return this.options.suggestions === false ? withoutSuggestions(error.toJSON()) : error.toJSON();
  }

  private prepared(query: string): Prepared | RefusedRequest {
    const known = this.documents.get(query);
    if (known !== undefined) return known;
    const prepared = this.prepareAfresh(query);
    // The key and the copies of its text alone are 3 bytes a character: a longer text is never walked for its size.
    if (3 * query.length <= LARGEST_DOCUMENT_BYTES) {
      this.documents.set(query, prepared, prepared.kind === 'prepared' ? documentBytes(prepared.document) : refusalBytes(prepared));
    }
    return prepared;
  }

  private prepareAfresh(query: string): Prepared | RefusedRequest {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: 10_000 });
    } catch (error) {
      // A syntax error says where it is; anything else (the parser's recursion overflowing the
      // stack on a deeply nested document) says nothing of the server's insides.
      const message = error instanceof GraphQLError ? error.message : 'The document is nested too deeply to parse.';
      return refused(400, 'GRAPHQL_PARSE_FAILED', message);
    }
    const usesVariables = /\$/.test(query);
    // Measured before validation, so that a bomb costs no more than its parse (with variables at
    // their least; their values are measured again with each request).
    const exceeded = exceededLimit(measureDocument(this.options.schema, document, undefined, this.options.limits), this.options.limits);
    if (exceeded !== null) return tooComplex(exceeded);
    const errors = validate(this.options.schema, document, this.rules);
    if (errors.length > 0) {
      return { kind: 'refused', status: 400, errors: errors.map((error) => ({ ...this.toJSON(error), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    }
    return { kind: 'prepared', document, usesVariables };
  }
}

/**
 * A request's identity for the result cache: the text, the operation and the values of the
 * variables that operation declares. Others do not change the answer (execution ignores them), so
 * they do not make a new key either: varying an unused variable cannot fill the cache.
 */
function resultKey(request: GraphQLRequest, document: DocumentNode): string {
  const given = request.variables ?? {};
  const declared = getOperationAST(document, request.operationName)?.variableDefinitions ?? [];
  // Pairs, so that a variable given as null and one left to its default stay apart.
  const values = declared.map(({ variable }) => variable.name.value).filter((name) => Object.hasOwn(given, name)).map((name) => [name, given[name]]);
  return `${request.query}\0${request.operationName ?? ''}\0${values.length === 0 ? '' : JSON.stringify(values)}`;
}

/**
 * What a parsed document holds in memory, with graphql-jit's compiled query of it, estimated from
 * its text and tokens (measured in decision 0030): ~1 KB a token (its node and location, and the
 * generated code), ~100 bytes a comment (a token kept in the location chain, nothing more), and
 * the text twice more (the strings copied out of it, and quoted in the generated code). The text
 * itself is the cache's key, counted there.
 */
function documentBytes(document: DocumentNode): number {
  let tokens = 0;
  let comments = 0;
  for (let token = document.loc?.startToken ?? null; token !== null; token = token.next) {
    if (token.kind === TokenKind.COMMENT) comments += 1;
    else tokens += 1;
  }
  return 2 * stringBytes(document.loc?.source.body ?? '') + 100 * comments + 1024 * tokens;
}

/** A kept refusal: its errors, as the text they are sent as. */
function refusalBytes(refusal: RefusedRequest): number {
  return 2 * JSON.stringify(refusal.errors).length;
}

function refused(status: 400 | 405, code: GraphQLErrorCode, message: string): RefusedRequest {
  return { kind: 'refused', status, errors: [{ message, extensions: { code } }] };
}

function tooComplex(limit: 'depth' | 'aliases' | 'cost' | 'merges'): RefusedRequest {
  if (limit === 'merges') return refused(400, 'QUERY_TOO_COMPLEX', 'The document selects the same fields in the same place too many times.');
  return refused(400, 'QUERY_TOO_COMPLEX', `The document exceeds the ${limit} limit.`);
}

/** An event's execution under way, and the context it runs with. */
interface EventRun {
  readonly result: Promise<ExecutionResult> | ExecutionResult;
  readonly context: OperationContext;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> & AsyncIterator<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
