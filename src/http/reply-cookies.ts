import type { FastifyReply } from 'fastify';
import type { ResponseCookies } from '../endpoints/cookies.ts';
import { setCookieLine } from '../endpoints/cookies.ts';

/** A Fastify reply as the place an endpoint helper's cookies go: one `Set-Cookie` line each. */
export function replyCookies(reply: FastifyReply): ResponseCookies {
  return { set: (name, value, attributes) => void reply.header('set-cookie', setCookieLine({ name, value, attributes })) };
}
