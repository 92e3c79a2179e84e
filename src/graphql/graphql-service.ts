import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  type GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  subscribe,
  validate,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Logger } from 'pino';
import type { GraphQLContext } from './context.ts';
import { type GraphQLErrorCode } from './errors.ts';
import { type DocumentLimits, exceededLimit, measureDocument } from './limits.ts';

/** What executing one operation of a prepared document needs. */
export interface OperationArgs {
  readonly document: DocumentNode;
  readonly contextValue: GraphQLContext;
  readonly variableValues?: Record<string, unknown> | null;
  readonly operationName?: string | null;
}

/** A GraphQL request as HTTP (or a socket) carries it. */
export interface GraphQLRequest {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

/** A request refused before execution: the HTTP status and the error. */
export interface RefusedRequest {
  readonly kind: 'refused';
  readonly status: 400 | 405;
  readonly errors: readonly GraphQLFormattedError[];
}

export interface ExecutedRequest {
  readonly kind: 'executed';
  readonly result: { data?: unknown; errors?: readonly GraphQLFormattedError[] };
}

/** A parsed and validated document, kept per query text (refusals are kept too). */
interface Prepared {
  readonly kind: 'prepared';
  readonly document: DocumentNode;
  /** Limits that depend on variables (a `first: $n`) are measured per request. */
  readonly usesVariables: boolean;
}

/** Distinct documents kept parsed and validated: clients send the same few again and again. */
const DOCUMENT_CACHE_SIZE = 1000;

export interface GraphQLServiceOptions {
  readonly schema: GraphQLSchema;
  readonly limits: DocumentLimits;
  /** Production: introspection is refused by validation. */
  readonly introspection: boolean;
  readonly logger: Logger;
}

/**
 * Runs GraphQL requests with the order SPEC section 6 asks for: parse, measure the document
 * against the limits, validate, execute. Errors carry `extensions.code`; anything unexpected is
 * masked and logged.
 */
export class GraphQLService {
  private readonly documents = new Map<string, Prepared | RefusedRequest>();
  /** Each validated document compiled by graphql-jit, per operation name: a function per query, no walk of the tree. */
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  private readonly rules;

  constructor(private readonly options: GraphQLServiceOptions) {
    this.rules = options.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
  }

  /** Parses, measures and validates: a refusal, or the document to execute. */
  prepare(request: GraphQLRequest, allowed: readonly ('query' | 'mutation' | 'subscription')[]): RefusedRequest | { kind: 'prepared'; document: DocumentNode } {
    const prepared = this.prepared(request.query);
    if (prepared.kind === 'refused') return prepared;
    const { document, usesVariables } = prepared;
    if (usesVariables) {
      const exceeded = exceededLimit(measureDocument(this.options.schema, document, request.variables ?? {}), this.options.limits);
      if (exceeded !== null) return tooComplex(exceeded);
    }
    const operation = getOperationAST(document, request.operationName)?.operation;
    if (operation === undefined) return refused(400, 'GRAPHQL_VALIDATION_FAILED', 'Name the operation to run.');
    if (!allowed.includes(operation)) {
      return operation === 'subscription'
        ? refused(400, 'GRAPHQL_VALIDATION_FAILED', 'Subscriptions are served over WebSocket at this path.')
        : refused(405, 'GRAPHQL_VALIDATION_FAILED', 'Mutations are sent with POST.');
    }
    return { kind: 'prepared', document };
  }

  async execute(document: DocumentNode, request: GraphQLRequest, context: GraphQLContext): Promise<ExecutedRequest> {
    const result = await this.executeArgs({ document, contextValue: context, variableValues: request.variables ?? null, operationName: request.operationName ?? null });
    return { kind: 'executed', result: this.format(result) };
  }

  /** A query or mutation, compiled once per document and operation; graphql-js when it cannot be compiled. */
  async executeArgs(args: OperationArgs): Promise<ExecutionResult> {
    const compiled = this.compiledFor(args.document, args.operationName);
    if (compiled === null) return (await execute({ schema: this.options.schema, ...args })) as ExecutionResult;
    return compiled.query(undefined, args.contextValue, args.variableValues ?? {});
  }

  /** A subscription's stream of results, each event executed by the compiled query. */
  async subscribeArgs(args: OperationArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const compiled = this.compiledFor(args.document, args.operationName);
    if (compiled === null || compiled.subscribe === undefined) {
      return (await subscribe({ schema: this.options.schema, ...args })) as AsyncIterableIterator<ExecutionResult> | ExecutionResult;
    }
    return compiled.subscribe(undefined, args.contextValue, args.variableValues ?? {});
  }

  private compiledFor(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    let byOperation = this.compiled.get(document);
    if (byOperation === undefined) this.compiled.set(document, (byOperation = new Map()));
    const key = operationName ?? '';
    let compiled = byOperation.get(key);
    if (compiled === undefined) {
      const result = compileQuery(this.options.schema, document, operationName ?? undefined);
      compiled = isCompiledQuery(result) ? result : null;
      byOperation.set(key, compiled);
    }
    return compiled;
  }

  /** Errors as clients see them: every one with a code, unexpected ones without their message. */
  format(result: ExecutionResult): ExecutedRequest['result'] {
    if (!result.errors?.length) return { data: result.data };
    return { data: result.data, errors: result.errors.map((error) => this.formatError(error)) };
  }

  private formatError(error: GraphQLError): GraphQLFormattedError {
    const formatted = error.toJSON();
    const code = formatted.extensions?.code;
    if (typeof code === 'string') return formatted;
    if (error.originalError === undefined || error.originalError === null) {
      // graphql-js's own refusals of a request: wrong variables, an input that does not coerce.
      return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } };
    }
    this.options.logger.error({ err: error.originalError, path: error.path }, 'GraphQL resolver failed');
    return { message: 'Internal server error.', ...(formatted.locations ? { locations: formatted.locations } : {}), ...(formatted.path ? { path: formatted.path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }

  private prepared(query: string): Prepared | RefusedRequest {
    const known = this.documents.get(query);
    if (known !== undefined) return known;
    const prepared = this.prepareAfresh(query);
    if (this.documents.size >= DOCUMENT_CACHE_SIZE) this.documents.delete(this.documents.keys().next().value as string);
    this.documents.set(query, prepared);
    return prepared;
  }

  private prepareAfresh(query: string): Prepared | RefusedRequest {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: 10_000 });
    } catch (error) {
      return refused(400, 'GRAPHQL_PARSE_FAILED', (error as Error).message);
    }
    const usesVariables = /\$/.test(query);
    // Measured before validation, so that a bomb costs no more than its parse (with variables at
    // their least; their values are measured again with each request).
    const exceeded = exceededLimit(measureDocument(this.options.schema, document), this.options.limits);
    if (exceeded !== null) return tooComplex(exceeded);
    const errors = validate(this.options.schema, document, this.rules);
    if (errors.length > 0) {
      return { kind: 'refused', status: 400, errors: errors.map((error) => ({ ...error.toJSON(), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    }
    return { kind: 'prepared', document, usesVariables };
  }
}

function refused(status: 400 | 405, code: GraphQLErrorCode, message: string): RefusedRequest {
  return { kind: 'refused', status, errors: [{ message, extensions: { code } }] };
}

function tooComplex(limit: 'depth' | 'aliases' | 'cost'): RefusedRequest {
  return refused(400, 'QUERY_TOO_COMPLEX', `The document exceeds the ${limit} limit.`);
}
