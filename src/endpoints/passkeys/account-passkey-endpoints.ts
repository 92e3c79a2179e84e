import type { PasskeyCredentialJSON, PasskeyManager } from '../../identity/passkeys.ts';
import type { UserManager } from '../../identity/user-manager.ts';
import type { Phrase } from '../../i18n/phrase.ts';
import { sha256Hex } from '../../security/crypto/digest.ts';
import { GatehouseError } from '../../security/errors.ts';
import type { Passkey } from '../../store/ports.ts';
import { CookieSignIn, type CookieSignInDependencies } from '../cookie-sign-in.ts';
import { CookieList } from '../cookies.ts';
import { defineEndpoint, type Endpoint, type EndpointRequest } from '../endpoint.ts';
import { SIGNED_IN_USER } from '../authorizations.ts';
import { NO_STORE } from '../no-store.ts';
import { RecentSignInCheck, type RecentSignInCheckDependencies } from '../recent-sign-in-check.ts';
import { signedInUser, signedInUserId } from '../signed-in-user.ts';
import { PasskeyParams, PasskeyRegistration, PasskeyRename, RegistrationOptionsRequest } from './passkey-schemas.ts';
import { registrationRefused } from './registration-refusals.ts';

/** What the signed-in user's passkeys use: the passkey use cases, the cookies (a removal re-issues the session), and the recent-sign-in rule. */
export interface AccountPasskeyEndpointOptions extends CookieSignInDependencies, RecentSignInCheckDependencies {
  readonly passkeys: Pick<PasskeyManager, 'registrationOptions' | 'register' | 'list' | 'rename' | 'remove'>;
  readonly users: Pick<UserManager, 'findById'>;
}

const NO_SUCH_PASSKEY: Phrase = (m) => m.problemNoSuchPasskey;

/**
 * The signed-in user's passkeys (docs/reference/http.md): registration in two steps
 * (`POST /account/passkeys/options`, then `POST /account/passkeys` with the authenticator's
 * response), the list, renaming and removal (`/account/passkeys/:id`). Removing a passkey is a
 * security change: every other session ends and the one that asked is re-issued.
 */
export function accountPasskeyEndpoints(options: AccountPasskeyEndpointOptions): readonly Endpoint[] {
  const { passkeys, users } = options;
  const cookies = new CookieSignIn(options);
  // A passkey signs in on its own, as both factors: adding one needs a recent sign-in, at both steps (decision 0065).
  const recent = new RecentSignInCheck(options, cookies);

  /**
   * Who may answer a registration challenge: the cookie session that asked for it, or, for a
   * caller with a bearer token, that user. Only a hash of the session token is kept.
   */
  const bindingOf = (request: EndpointRequest): string => {
    const session = cookies.presentedSession(request);
    return session === null ? `user:${signedInUserId(request)}` : `session:${sha256Hex(session)}`;
  };

  const registrationOptions = defineEndpoint<RegistrationOptionsRequest>({
    method: 'POST',
    path: '/account/passkeys/options',
    authorization: SIGNED_IN_USER,
    body: RegistrationOptionsRequest,
    // `fetch(url, { method: 'POST' })` asks for options as `{}` does.
    absentBody: {},
    async handle(request) {
      await recent.require(request);
      const user = await signedInUser(users, request);
      const creationOptions = await passkeys.registrationOptions(user, bindingOf(request), request.body.name?.trim() ?? null).catch(registrationRefused);
      return { status: 200, headers: NO_STORE, body: creationOptions };
    },
  });

  const registration = defineEndpoint<PasskeyRegistration>({
    method: 'POST',
    path: '/account/passkeys',
    authorization: SIGNED_IN_USER,
    body: PasskeyRegistration,
    successStatus: 201,
    async handle(request) {
      await recent.require(request);
      const user = await signedInUser(users, request);
      const response = request.body.response as unknown as PasskeyCredentialJSON;
      const passkey = await passkeys.register(user, bindingOf(request), response, request.body.name?.trim() ?? null, { ip: request.ip }).catch(registrationRefused);
      return { status: 201, headers: NO_STORE, body: { id: passkey.credentialId, name: passkey.name, createdAt: iso(passkey.createdAt) } };
    },
  });

  const list = defineEndpoint({
    method: 'GET',
    path: '/account/passkeys',
    authorization: SIGNED_IN_USER,
    async handle(request) {
      const listed = await passkeys.list({ id: signedInUserId(request) });
      return { status: 200, headers: NO_STORE, body: listed.map(summary) };
    },
  });

  const rename = defineEndpoint<PasskeyRename>({
    method: 'PATCH',
    path: '/account/passkeys/:id',
    authorization: SIGNED_IN_USER,
    params: PasskeyParams,
    body: PasskeyRename,
    successStatus: 204,
    async handle(request) {
      const renamed = await passkeys.rename({ id: signedInUserId(request) }, credentialIdOf(request), request.body.name.trim());
      if (!renamed) throw GatehouseError.notFound(NO_SUCH_PASSKEY);
      return { status: 204, headers: NO_STORE };
    },
  });

  const removal = defineEndpoint({
    method: 'DELETE',
    path: '/account/passkeys/:id',
    authorization: SIGNED_IN_USER,
    params: PasskeyParams,
    successStatus: 204,
    async handle(request) {
      const user = await signedInUser(users, request);
      // Every session, refresh family and token of the user ended with the security stamp: the
      // sockets close now, here and elsewhere, and the session that asked goes on under the new stamp.
      const removed = await passkeys.remove(user, credentialIdOf(request), { ip: request.ip, session: cookies.presented(request) });
      if (removed.outcome === 'not-found') throw GatehouseError.notFound(NO_SUCH_PASSKEY);
      if (removed.outcome !== 'removed') throw new GatehouseError('GH_CONFLICT', (m) => m.problemOnlyWayInPasskey);
      const reissued = new CookieList();
      if (removed.session !== null) cookies.setSession(request, reissued, removed.session);
      return { status: 204, headers: NO_STORE, cookies: reissued.cookies };
    },
  });

  return [registrationOptions, registration, list, rename, removal];
}

/** The passkey the path names (`:id`, a credential id valid against `PasskeyParams`). */
function credentialIdOf(request: EndpointRequest): string {
  return (request.params as PasskeyParams).id;
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
