/**
 * The exception filter of Gatehouse's refusals and errors on either platform: the guard's refusal,
 * a refused resource check (401 or 403), Gatehouse's errors and the application's `ProblemError`s
 * as problem+json, as on every host; and NestJS's `NotFoundException` (a path no route serves, or
 * a handler's) as Gatehouse's 404. A browser's 403 or 404 under the membership paths gets the
 * error page. Other exceptions are left to NestJS's own filters.
 */
import type { IncomingMessage } from 'node:http';
import { type ArgumentsHost, NotFoundException } from '@nestjs/common';
import { BaseExceptionFilter, type HttpAdapterHost } from '@nestjs/core';
import { serialize as serializeCookie } from 'cookie';
import type { EndpointResponse } from '../endpoints/endpoint.ts';
import { knownErrorAnswer } from '../endpoints/error-answers.ts';
import { refusalForReader } from '../endpoints/refusal-page.ts';
import { refusalResponse } from '../endpoints/refusal-response.ts';
import { AuthorizationRefusal } from '../endpoints/resource-checks.ts';
import { refusalHeaders } from '../endpoints/response-headers.ts';
import type { GatehouseInstance } from '../hosting/gatehouse-instance.ts';
import { instanceInternals } from '../hosting/gatehouse-instance.ts';
import { refusalError } from '../graphql/errors.ts';
import { GatehouseError } from '../security/errors.ts';
import { GatehouseRefusal } from './gatehouse-guard.ts';
import { nodeRequestOf, type PlatformRequest, receivedOf } from './nest-requests.ts';

/** NestJS's message for a path no route serves: not a detail for the caller. */
const ROUTER_MESSAGE = /^Cannot [A-Z]+ /;

/** Catches every exception (`@Catch()`): those Gatehouse does not answer go on to NestJS's own handling. */
export class GatehouseExceptionFilter extends BaseExceptionFilter {
  private readonly forReader;

  constructor(
    private readonly instance: GatehouseInstance,
    private readonly adapterHost: HttpAdapterHost,
    private readonly address: (request: IncomingMessage) => string,
  ) {
    super(adapterHost.httpAdapter);
    this.forReader = refusalForReader(instance.pages, instance.paths.prefix);
  }

  override catch(error: unknown, host: ArgumentsHost): unknown {
    // In a resolver, the error goes back to GraphQL, which renders it (a refused check as its code).
    if (host.getType<string>() === 'graphql') return error instanceof AuthorizationRefusal ? refusalError(error.outcome) : error;
    if (host.getType() !== 'http') return super.catch(error, host);
    this.instance.metrics?.errorSeen(error);
    const request = host.switchToHttp().getRequest<PlatformRequest>();
    const answer = this.answerTo(error, request);
    if (answer === undefined) return super.catch(error, host);
    this.write(request, host.switchToHttp().getResponse<unknown>(), answer);
  }

  /** Gatehouse's answer to `error`: its refusals, its errors, the application's `ProblemError`, an unreachable store, a 404; else undefined. */
  private answerTo(error: unknown, request: PlatformRequest): EndpointResponse | undefined {
    if (error instanceof GatehouseRefusal) return error.answer;
    if (error instanceof AuthorizationRefusal) return refusalResponse(error.outcome, receivedOf(request, this.address), (returnUrl) => this.instance.paths.loginFor(returnUrl));
    const known = knownErrorAnswer(error instanceof NotFoundException ? GatehouseError.notFound(ROUTER_MESSAGE.test(error.message) ? undefined : error.message) : error);
    if (known?.report !== undefined) instanceInternals(this.instance).services.logger[known.report.level]({ err: known.report.err }, known.report.message);
    return known?.response;
  }

  private write(request: PlatformRequest, response: unknown, answer: EndpointResponse): void {
    const node = nodeRequestOf(request);
    const sent = this.forReader(answer, { url: request.originalUrl ?? node.url ?? '/', headers: node.headers });
    const { httpAdapter } = this.adapterHost;
    for (const [name, value] of Object.entries({ ...sent.headers, ...refusalHeaders(this.instance.config.production) })) httpAdapter.setHeader(response, name, value);
    for (const { name, value, attributes } of sent.cookies ?? []) httpAdapter.appendHeader(response, 'set-cookie', serializeCookie(name, value, attributes));
    if (sent.body === undefined) return void httpAdapter.reply(response, '', sent.status);
    const type = sent.headers?.['content-type'] ?? 'application/json';
    httpAdapter.setHeader(response, 'content-type', /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`);
    httpAdapter.reply(response, typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body), sent.status);
  }
}
