import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type PasskeyCredentialJSON, type PasskeyManager, PasskeyRegistrationRefused } from '../../identity/passkeys.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import { sha256Hex } from '../../security/crypto/digest.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { Passkey, User } from '../../store/ports.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../../endpoints/cookie-sign-in.ts';
import { membershipPolicies } from '../membership-policies.ts';
import { userIdOf } from '../pipeline.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../../endpoints/recent-sign-in-check.ts';
import {
  PasskeyParams,
  PasskeyRegistration,
  PasskeyRename,
  RegistrationOptionsRequest,
} from './passkey-schemas.ts';
import { replyCookies } from '../reply-cookies.ts';

/** What the signed-in user's passkeys use: the passkey use cases, the cookies (a removal re-issues the session), and the recent-sign-in rule. */
export interface AccountPasskeyRouteOptions extends CookieSignInDependencies, RecentSignInCheckDependencies {
  readonly passkeys: PasskeyManager;
  readonly users: Pick<UserManager, 'findById'>;
}

const AUTHENTICATED = { authorization: { authorize: [{ policy: membershipPolicies.user }] } };

const REFUSALS: Record<PasskeyRegistrationRefused['reason'], string> = {
  challenge: 'The passkey answers no registration started here, or it took longer than five minutes. Start again.',
  verification: 'The passkey could not be verified (origin, relying party, challenge or signature).',
  'credential-id-too-long': "The passkey's credential id is longer than 1,023 bytes.",
  'credential-id-mismatch': "The response's id is not the credential id its authenticator attested.",
  taken: 'This passkey is registered already.',
  'too-many': 'This account has as many passkeys as it may hold: remove one first.',
};

/**
 * The signed-in user's passkeys (docs/reference/http.md): registration in two steps (options,
 * then the authenticator's response), the list, renaming and removal. Removing a passkey is a
 * security change: every other session ends and the one that asked is re-issued.
 */
export async function accountPasskeyRoutes(app: FastifyInstance, options: AccountPasskeyRouteOptions): Promise<void> {
  const { passkeys, users } = options;
  const cookies = new CookieSignIn(options);
  // A passkey signs in on its own, as both factors: adding one needs a recent sign-in, at both steps (decision 0065).
  const recent = new RecentSignInCheck(options, cookies);

  const currentUser = async (request: FastifyRequest): Promise<User> => {
    const user = await users.findById(userIdOf(request));
    if (user === null) throw GatehouseError.notFound('The account no longer exists.');
    return user;
  };
  /**
   * Who may answer a registration challenge: the cookie session that asked for it, or, for a
   * caller with a bearer token, that user. Only a hash of the session token is kept.
   */
  const bindingOf = (request: FastifyRequest): string => {
    const session = cookies.presentedSession(request);
    return session === null ? `user:${userIdOf(request)}` : `session:${sha256Hex(session)}`;
  };
  const refused = (error: unknown): never => {
    if (error instanceof PasskeyRegistrationRefused) throw GatehouseError.validation({ response: [REFUSALS[error.reason]] }, REFUSALS[error.reason]);
    throw error;
  };

  app.post<{ Body: RegistrationOptionsRequest }>(
    '/account/passkeys/options',
    { schema: { body: RegistrationOptionsRequest }, preValidation: noBodyIsEmpty, config: AUTHENTICATED },
    async (request, reply) => {
      await recent.require(request);
      const user = await currentUser(request);
      const options = await passkeys.registrationOptions(user, bindingOf(request), request.body.name?.trim() ?? null).catch(refused);
      return noStore(reply).send(options);
    },
  );

  app.post<{ Body: PasskeyRegistration }>('/account/passkeys', { schema: { body: PasskeyRegistration }, config: { ...AUTHENTICATED, successStatus: 201 } }, async (request, reply) => {
    await recent.require(request);
    const user = await currentUser(request);
    const response = request.body.response as unknown as PasskeyCredentialJSON;
    const passkey = await passkeys.register(user, bindingOf(request), response, request.body.name?.trim() ?? null, { ip: request.ip }).catch(refused);
    return noStore(reply).code(201).send({ id: passkey.credentialId, name: passkey.name, createdAt: iso(passkey.createdAt) });
  });

  app.get('/account/passkeys', { config: AUTHENTICATED }, async (request, reply) => {
    const list = await passkeys.list({ id: userIdOf(request) });
    return noStore(reply).send(list.map(summary));
  });

  app.patch<{ Params: PasskeyParams; Body: PasskeyRename }>(
    '/account/passkeys/:id',
    { schema: { params: PasskeyParams, body: PasskeyRename }, config: { ...AUTHENTICATED, successStatus: 204 } },
    async (request, reply) => {
      const renamed = await passkeys.rename({ id: userIdOf(request) }, request.params.id, request.body.name.trim());
      if (!renamed) throw GatehouseError.notFound('You have no passkey with this id.');
      return noStore(reply).code(204).send();
    },
  );

  app.delete<{ Params: PasskeyParams }>('/account/passkeys/:id', { schema: { params: PasskeyParams }, config: { ...AUTHENTICATED, successStatus: 204 } }, async (request, reply) => {
    const user = await currentUser(request);
    // Every session, refresh family and token of the user ended with the security stamp: the
    // sockets close now, here and elsewhere, and the session that asked goes on under the new stamp.
    const removal = await passkeys.remove(user, request.params.id, { ip: request.ip, session: cookies.presented(request) });
    if (removal.outcome === 'not-found') throw GatehouseError.notFound('You have no passkey with this id.');
    if (removal.outcome !== 'removed') throw new GatehouseError('GH_CONFLICT', 'This passkey is your only way to sign in: set a password, link a provider or add another passkey first.');
    if (removal.session !== null) cookies.setSession(request, replyCookies(reply), removal.session);
    return noStore(reply).code(204).send();
  });
}

/** `{name?}`, or no body at all (`fetch(url, { method: 'POST' })`). */
async function noBodyIsEmpty(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

function summary(passkey: Passkey) {
  return {
    id: passkey.credentialId,
    name: passkey.name,
    createdAt: iso(passkey.createdAt),
    lastUsedAt: passkey.lastUsedAt === null ? null : iso(passkey.lastUsedAt),
    backedUp: passkey.backedUp,
  };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store');
}
