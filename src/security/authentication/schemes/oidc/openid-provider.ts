import type * as OpenId from 'openid-client';
import { IdTokenVerifier } from './id-token.ts';
import { ExternalProviderUnavailable, ExternalResponseRejected } from './provider-errors.ts';

/** One external OpenID Connect provider, as configured (`OIDC_<NAME>_*`). */
export interface OpenIdProviderOptions {
  readonly name: string;
  readonly issuer: URL;
  readonly clientId: string;
  readonly clientSecret: string;
  /** How long a sign-in may wait on the provider, for all its requests together. */
  readonly timeoutMs: number;
  /** Epoch milliseconds. */
  readonly now: () => number;
}

/** What the browser carries from the start of the flow to its callback (sealed in a cookie). */
export interface AuthorizationRequest {
  readonly url: URL;
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

/** What the provider asserts about the user, from its verified ID token and user info. */
export interface ProviderAssertion {
  readonly subject: string;
  readonly email: string | undefined;
  readonly emailVerified: boolean;
  readonly name: string | undefined;
}

/** How Gatehouse proves itself to the provider's token endpoint with its client secret. */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';

/**
 * The method of the provider's discovery document (`token_endpoint_auth_methods_supported`):
 * `client_secret_basic` when listed, or when the list is absent (OpenID Connect Discovery's
 * default; RFC 6749 section 2.3.1 requires providers to support it), else `client_secret_post`.
 */
export function advertisedAuthMethod(supported: unknown): TokenEndpointAuthMethod {
  if (!Array.isArray(supported) || supported.includes('client_secret_basic')) return 'client_secret_basic';
  return 'client_secret_post';
}

const SCOPE = 'openid email profile';
/** The provider's metadata is read again at least daily: endpoints and keys move. */
const METADATA_MAX_AGE_MS = 24 * 60 * 60 * 1000;

interface Discovered {
  readonly configuration: OpenId.Configuration;
  readonly idTokens: IdTokenVerifier;
  readonly readAt: number;
}

/** openid-client, loaded with the first discovery: a service without external logins never loads it. */
let loading: Promise<typeof OpenId> | undefined;
const openIdClient = () => (loading ??= import('openid-client'));

/**
 * The relying party's side of one provider (OpenID Connect Core, authorization code flow with
 * PKCE S256, `state` and `nonce`). openid-client makes the requests and checks the code
 * exchange; the ID token's signature is verified here against the provider's JWKS
 * (IdTokenVerifier), which openid-client leaves to TLS for this flow.
 *
 * The discovery document is read at first use, again once it is a day old, and again at the
 * next use after the provider failed us (its endpoints may have moved). Every wait on the
 * provider is bounded by `timeoutMs`: a provider that is down, hangs or answers 5xx is
 * `ExternalProviderUnavailable`; an answer that cannot be believed is `ExternalResponseRejected`.
 */
export class OpenIdProvider {
  private current: Discovered | undefined;
  private reading: Promise<Discovered> | undefined;
  private failedAt: number | undefined;
  /**
   * The provider refused Basic for this client although it lists it (some register one method per
   * client): token requests use `client_secret_post` until the document is read again.
   */
  private basicRefused = false;

  constructor(private readonly options: OpenIdProviderOptions) {}

  /** A fresh verifier, state and nonce, and the URL that sends the browser to the provider. */
  async authorizationRequest(redirectUri: string): Promise<AuthorizationRequest> {
    const { configuration } = await this.withinTimeout(this.discovered());
    const oidc = await openIdClient();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, nonce, verifier };
  }

  /**
   * The provider's redirect back (`callbackUrl`, with `code`, `state` and maybe `iss`): exchanges
   * the code, verifies the ID token, and reads the user info when the ID token lacks the e-mail.
   */
  async assertion(callbackUrl: URL, expected: Omit<AuthorizationRequest, 'url'>): Promise<ProviderAssertion> {
    try {
      return await this.withinTimeout(this.exchange(callbackUrl, expected));
    } catch (error) {
      const failure = classified(error);
      // The next use reads the discovery document again: a moved endpoint heals on its own.
      if (failure instanceof ExternalProviderUnavailable) this.failedAt = this.options.now();
      throw failure;
    }
  }

  private async exchange(callbackUrl: URL, expected: Omit<AuthorizationRequest, 'url'>): Promise<ProviderAssertion> {
    const { configuration, idTokens } = await this.discovered();
    const oidc = await openIdClient();
    const tokens = await this.codeGrant(oidc, configuration, callbackUrl, {
      pkceCodeVerifier: expected.verifier,
      expectedState: expected.state,
      expectedNonce: expected.nonce,
      idTokenExpected: true,
    });
    if (tokens.id_token === undefined) throw new ExternalResponseRejected('no-id-token', 'The provider sent no ID token.');
    const idToken = await idTokens.verify(tokens.id_token);
    const subject = idToken.sub as string;
    // Providers may keep e-mail and name out of the ID token: the user info endpoint has them,
    // for the same subject (openid-client checks it).
    const claims = typeof idToken.email === 'string' ? idToken : await oidc.fetchUserInfo(configuration, tokens.access_token, subject);
    return {
      subject,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === 'string' ? claims.name : undefined,
    };
  }

  /**
   * The code exchanged with the method the provider advertises. A provider that lists Basic yet
   * answers `invalid_client` to it, and lists Post too, is asked once more with Post: it
   * authenticates the client before it looks at the code, so the code is still unspent.
   */
  private async codeGrant(
    oidc: typeof OpenId,
    configuration: OpenId.Configuration,
    callbackUrl: URL,
    checks: OpenId.AuthorizationCodeGrantChecks,
  ): Promise<Awaited<ReturnType<typeof OpenId.authorizationCodeGrant>>> {
    try {
      return await oidc.authorizationCodeGrant(configuration, callbackUrl, checks);
    } catch (error) {
      if (!this.mayRetryWithPost(oidc, configuration, error)) throw error;
      this.basicRefused = true;
      return oidc.authorizationCodeGrant(configuration, callbackUrl, checks);
    }
  }

  private mayRetryWithPost(oidc: typeof OpenId, configuration: OpenId.Configuration, error: unknown): boolean {
    const supported = configuration.serverMetadata().token_endpoint_auth_methods_supported;
    // RFC 6749 section 5.2: `invalid_client`, or a 401 with a challenge, when the client authentication failed.
    const clientRefused =
      (error instanceof oidc.ResponseBodyError && error.error === 'invalid_client') || (error instanceof oidc.WWWAuthenticateChallengeError && error.status === 401);
    return (
      !this.basicRefused &&
      clientRefused &&
      advertisedAuthMethod(supported) === 'client_secret_basic' &&
      Array.isArray(supported) &&
      supported.includes('client_secret_post')
    );
  }

  /** Basic or Post, as the provider's document advertises (or as its refusal of Basic taught). */
  private clientAuthentication(oidc: typeof OpenId, clientSecret: string): OpenId.ClientAuth {
    const basic = oidc.ClientSecretBasic(clientSecret);
    const post = oidc.ClientSecretPost(clientSecret);
    return (server, client, body, headers) => {
      const usesPost = this.basicRefused || advertisedAuthMethod(server.token_endpoint_auth_methods_supported) === 'client_secret_post';
      return (usesPost ? post : basic)(server, client, body, headers);
    };
  }

  /** The current document: read at first use, once a day old, and at the next use after any failure. */
  private async discovered(): Promise<Discovered> {
    const current = this.current;
    const failedSince = this.failedAt !== undefined && (current === undefined || this.failedAt >= current.readAt);
    if (current !== undefined && !failedSince && this.options.now() - current.readAt < METADATA_MAX_AGE_MS) return current;
    try {
      return await (this.reading ??= this.discover().finally(() => (this.reading = undefined)));
    } catch (error) {
      this.failedAt = this.options.now();
      // An outage of the discovery document alone costs nothing: the last one read serves.
      if (current !== undefined) return current;
      throw error;
    }
  }

  private async discover(): Promise<Discovered> {
    const { issuer, clientId, clientSecret, timeoutMs, now } = this.options;
    const oidc = await openIdClient();
    const insecure = issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {};
    let configuration: OpenId.Configuration;
    try {
      configuration = await oidc.discovery(issuer, clientId, undefined, this.clientAuthentication(oidc, clientSecret), { ...insecure, timeout: timeoutMs / 1000 });
    } catch (error) {
      throw new ExternalProviderUnavailable(`The discovery document of ${issuer.href} could not be read.`, { cause: error });
    }
    const metadata = configuration.serverMetadata();
    const idTokens = new IdTokenVerifier({
      issuer: metadata.issuer,
      clientId,
      clientSecret,
      jwksUri: keySetUrl(metadata.jwks_uri, issuer),
      providerAlgorithms: metadata.id_token_signing_alg_values_supported,
      timeoutMs,
      now,
    });
    const discovered = { configuration, idTokens, readAt: now() };
    this.current = discovered;
    this.basicRefused = false;
    return discovered;
  }

  /** Every wait on the provider ends within the timeout, whatever the request in flight does. */
  private withinTimeout<T>(work: Promise<T>): Promise<T> {
    const { timeoutMs, name } = this.options;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ExternalProviderUnavailable(`${name} did not answer within ${timeoutMs} ms.`)), timeoutMs);
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }
}

/**
 * The provider's key set: over https, or over http only on the issuer's own origin when the
 * issuer itself is http (development). Keys fetched in the clear from elsewhere could be anyone's.
 */
function keySetUrl(jwksUri: string | undefined, issuer: URL): URL {
  let url: URL | undefined;
  try {
    url = jwksUri === undefined ? undefined : new URL(jwksUri);
  } catch {
    url = undefined;
  }
  const usable = url !== undefined && (url.protocol === 'https:' || (url.protocol === 'http:' && issuer.protocol === 'http:' && url.origin === issuer.origin));
  if (!usable) throw new ExternalProviderUnavailable(`The discovery document of ${issuer.href} has no usable "jwks_uri".`);
  return url!;
}

/** openid-client's and fetch's failures, sorted into the provider's outage and its unusable answers. */
function classified(error: unknown): Error {
  if (error instanceof ExternalProviderUnavailable || error instanceof ExternalResponseRejected) return error;
  if (isOutage(error)) return new ExternalProviderUnavailable('The provider could not be reached.', { cause: error });
  const status = statusOf(error);
  if (status !== undefined) return new ExternalResponseRejected('token-request-refused', `The provider refused the code (${status}).`, { cause: error });
  return new ExternalResponseRejected('invalid-response', 'The provider’s answer could not be verified.', { cause: error });
}

function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof TypeError && error.message === 'fetch failed') return true;
  const code = (error as { code?: unknown }).code;
  if (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  const status = statusOf(error);
  return status !== undefined && status >= 500;
}

/** The HTTP status of the provider's answer an error is about, when it is about one. */
function statusOf(error: unknown): number | undefined {
  const { status, cause } = (error ?? {}) as { status?: unknown; cause?: unknown };
  if (typeof status === 'number') return status;
  if (cause instanceof Response) return cause.status;
  return undefined;
}
