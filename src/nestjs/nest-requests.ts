/**
 * What the NestJS host reads of a request on either platform: on platform-express the request is
 * Express's (Node's own, with `originalUrl`), on platform-fastify Fastify's (Node's is `raw`).
 */
import type { IncomingMessage } from 'node:http';
import { receivedFromNode } from '../endpoints/node-request.ts';
import type { ReceivedRequest } from '../endpoints/web-exchange.ts';

/** A request as a guard or a filter gets it from either platform. */
export interface PlatformRequest {
  /** Fastify's: Node's request. */
  readonly raw?: IncomingMessage;
  /** Express's: the target as sent, before routers trimmed `url`. */
  readonly originalUrl?: string;
  readonly url?: string;
}

/** Node's request behind a platform's. */
export function nodeRequestOf(request: PlatformRequest): IncomingMessage {
  return request.raw ?? (request as unknown as IncomingMessage);
}

/** The request as schemes read it, its address as `TRUST_PROXY` tells it. */
export function receivedOf(request: PlatformRequest, address: (request: IncomingMessage) => string): ReceivedRequest {
  const node = nodeRequestOf(request);
  return receivedFromNode(node, request.originalUrl ?? node.url ?? '/', address(node));
}
