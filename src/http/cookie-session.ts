import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import { cookieSessionCheck as neutralCheck, trustedOrigins } from '../endpoints/cookie-session-check.ts';
import type { Clock } from '../platform/clock.ts';
import type { PolicyAuthentication } from '../security/authentication/index.ts';
import { sendProblem } from './problem.ts';
import { replyCookies } from './reply-cookies.ts';

/** Runs once a request is authorized, before the endpoint; false when it has answered the request. */
export type AuthorizedCheck = (request: FastifyRequest, reply: FastifyReply, authentication: PolicyAuthentication) => boolean;

/**
 * The auth cookie's cross-site check and sliding renewal (endpoints/cookie-session-check.ts) on a
 * Fastify reply: the refusal sent, or the renewed cookie set for the endpoint's answer.
 */
export function cookieSessionCheck(config: Pick<Config, 'production' | 'publicUrl' | 'corsOrigins'>, clock: Clock): AuthorizedCheck {
  const check = neutralCheck({ trustedOrigins: trustedOrigins(config), production: config.production, clock });
  return (request, reply, authentication) => {
    const verdict = check(request, authentication);
    if (verdict.kind === 'refused') {
      sendProblem(reply, verdict.problem);
      return false;
    }
    if (verdict.renewed !== undefined) replyCookies(reply).set(verdict.renewed.name, verdict.renewed.value, verdict.renewed.attributes);
    return true;
  };
}
