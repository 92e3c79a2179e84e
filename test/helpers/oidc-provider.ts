/**
 * A real OpenID provider on loopback for external sign-in tests: oidc-provider with one client,
 * accounts defined by the test, and its development interactions (login by account id, consent)
 * driven over HTTP by `authorize`, as a browser would with cookies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface ProviderAccount {
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly name?: string;
}

/**
 * How the provider lets its client authenticate at the token endpoint: `only` one method (the
 * only one its discovery document lists and the client's registered one), or every method listed.
 */
export interface ClientAuthentication {
  readonly only?: 'client_secret_basic' | 'client_secret_post';
  /**
   * Lists every method, yet answers a token request that authenticates with Basic 401
   * `invalid_client` before reading it (oidc-provider itself takes Basic and Post alike), as
   * providers that hold each client to its one registered method do.
   */
  readonly refusesBasic?: boolean;
}

export interface TestProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accounts: Map<string, ProviderAccount>;
  /** How each token request authenticated its client: `basic` (an Authorization header) or `body`. */
  readonly tokenRequests: Array<'basic' | 'body'>;
  /**
   * Follows the provider's side of an authorization request as `accountId` (login, then
   * consent) and answers the redirect back to the client: its URL, not yet followed.
   */
  authorize(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUri: string, authentication: ClientAuthentication = {}): Promise<TestProvider> {
  const accounts = new Map<string, ProviderAccount>();
  const clientId = 'gatehouse';
  const clientSecret = 'a client secret for the test provider, long enough';
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: authentication.only ?? 'client_secret_post' }],
    ...(authentication.only ? { clientAuthMethods: [authentication.only] } : {}),
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => {
        const account = accounts.get(id) ?? {};
        return { sub: id, email: account.email, email_verified: account.emailVerified, name: account.name };
      },
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['a cookie key for the test provider'] },
    // Lifetimes of its artifacts, in seconds (the provider asks for them to be set).
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
  } as never);
  (provider as unknown as { on(event: string, listener: () => void): void }).on('server_error', () => undefined);
  const tokenRequests: Array<'basic' | 'body'> = [];
  const callback = (provider as unknown as { callback(): (req: IncomingMessage, res: unknown) => void }).callback();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'POST' && request.url === '/token') {
      const basic = /^basic /i.test(request.headers.authorization ?? '');
      tokenRequests.push(basic ? 'basic' : 'body');
      if (basic && authentication.refusesBasic) {
        response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="token"' });
        return void response.end(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }));
      }
    }
    callback(request, response);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    tokenRequests,
    async authorize(authorizationUrl, accountId) {
      const jar = new Map<string, string>();
      const request = async (url: string, init: RequestInit = {}) => {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          jar.set(pair!.slice(0, at), pair!.slice(at + 1));
        }
        return response;
      };
      let location = authorizationUrl;
      for (let step = 0; step < 10; step++) {
        const response = await request(location);
        const next = response.headers.get('location');
        if (next === null) throw new Error(`the provider stopped at ${location} with ${response.status}: ${(await response.text()).slice(0, 300)}`);
        const target = new URL(next, location);
        if (target.href.startsWith(redirectUri)) return target;
        const interaction = /\/interaction\/([^/?]+)$/.exec(target.pathname);
        if (interaction) {
          const page = await request(target.href);
          const html = await page.text();
          const prompt = html.includes('name="login"') ? 'login' : 'consent';
          const body = new URLSearchParams(prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt });
          const submitted = await request(target.href, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
          location = new URL(submitted.headers.get('location') ?? '', target).href;
          continue;
        }
        location = target.href;
      }
      throw new Error('the provider did not redirect back');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
