import { MAX_USER_AGENT_LENGTH, type SignInClient } from '../store/ports.ts';

/**
 * The client of a sign-in or a use, as a session or refresh family records it: the address as
 * the app's `TRUST_PROXY` setting gives it (Fastify's `request.ip`) and the `User-Agent`, cut to
 * `MAX_USER_AGENT_LENGTH` characters so that a client cannot make every row it touches large.
 */
export function signInClient(ip: string | undefined, userAgent: string | string[] | undefined): SignInClient {
  const agent = typeof userAgent === 'string' && userAgent !== '' ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null;
  return { ip: ip === undefined || ip === '' ? null : ip, userAgent: agent };
}

/** Where nothing was told of the client. */
export const UNKNOWN_CLIENT: SignInClient = Object.freeze({ ip: null, userAgent: null });
