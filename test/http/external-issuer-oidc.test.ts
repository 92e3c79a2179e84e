/**
 * Gatehouse for authorization alone, behind a real OpenID provider (oidc-provider): its JWT
 * access tokens (client_credentials grant, resourceIndicators, `at+jwt` for one API) are
 * accepted by the `Bearer` scheme found through the provider's discovery document, their claims
 * drive the application's policies (roles from Keycloak-style `realm_access.roles`, scopes from
 * `scope`), and Gatehouse's own tokens are no longer accepted where the external scheme replaced
 * its bearer scheme.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationPolicyBuilder, AuthorizationService, externalJwtBearer } from 'gatehouse-auth';
import { API_AUDIENCE, type AppUnderTest, type OidcIssuer, startAppWith, startOidcIssuer } from '../helpers/external-issuer.ts';

describe('the Bearer scheme over an OpenID provider\'s access tokens', () => {
  let provider: OidcIssuer;
  let gatehouse: AppUnderTest;
  const invoicesRead = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireClaim('scope', 'invoices:read').build();
  const authorization = new AuthorizationService();

  beforeAll(async () => {
    provider = await startOidcIssuer();
    const bearer = externalJwtBearer({
      authority: provider.issuer,
      audience: API_AUDIENCE,
      tokenType: 'at+jwt',
      roleClaim: 'realm_access.roles',
      nameClaim: 'client_id',
    });
    await bearer.ready();
    gatehouse = await startAppWith({ schemes: [bearer] }, (app) => {
      app.get('/billing/report', { config: { authorization: { authorize: [{ roles: ['billing'] }] } } }, async (request) => ({
        scheme: request.user.identity?.authenticationType,
        subject: request.user.subject,
        roles: request.user.findAll('role').map((claim) => claim.value),
      }));
      app.get('/invoices', async (request, reply) => {
        const result = await authorization.authorize(request.user, null, invoicesRead);
        return result.succeeded ? { invoices: [] } : reply.code(403).send({ refused: true });
      });
    });
  });
  afterAll(async () => {
    await gatehouse?.close();
    await provider?.close();
  });

  it('accepts a token from the provider through discovery: /me answers the mapped name', async () => {
    const token = await provider.clientCredentialsToken();
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const response = await gatehouse.app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(provider.clientId);
  });

  it('grants a role-protected endpoint by the provider\'s realm roles, and refuses it (403) without them', async () => {
    provider.extraClaims = { realm_access: { roles: ['billing', 'offline_access'] } };
    const withRole = await provider.clientCredentialsToken();
    provider.extraClaims = { realm_access: { roles: ['support'] } };
    const withoutRole = await provider.clientCredentialsToken();
    provider.extraClaims = {};

    const granted = await gatehouse.app.inject({ url: '/billing/report', headers: { authorization: `Bearer ${withRole}` } });
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toEqual({ scheme: 'Bearer', subject: provider.clientId, roles: ['billing', 'offline_access'] });

    const refused = await gatehouse.app.inject({ url: '/billing/report', headers: { authorization: `Bearer ${withoutRole}` } });
    expect(refused.statusCode).toBe(403);
  });

  it('judges a scope policy by the token\'s space-delimited scope', async () => {
    const reader = await provider.clientCredentialsToken('invoices:read');
    const writer = await provider.clientCredentialsToken('invoices:write');
    expect((await gatehouse.app.inject({ url: '/invoices', headers: { authorization: `Bearer ${reader}` } })).statusCode).toBe(200);
    expect((await gatehouse.app.inject({ url: '/invoices', headers: { authorization: `Bearer ${writer}` } })).statusCode).toBe(403);
  });

  it('refuses a tampered provider token with invalid_token, and a caller with none is challenged', async () => {
    const token = await provider.clientCredentialsToken();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, realm_access: { roles: ['billing'] } })).toString('base64url')}.${signature}`;
    const response = await gatehouse.app.inject({ url: '/billing/report', headers: { authorization: `Bearer ${forged}` } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="The token signature is invalid."');
    expect(response.body).not.toContain(signature);

    const anonymous = await gatehouse.app.inject({ url: '/me' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('Bearer');
  });

  it('no longer accepts Gatehouse\'s own access tokens: the external scheme replaced its bearer scheme', async () => {
    const user = await gatehouse.services.users.create({ email: 'own-token@example.com', emailConfirmed: true, password: 'correct horse battery staple' });
    const own = (await gatehouse.services.accessTokens.issue(user)).token;
    const response = await gatehouse.app.inject({ url: '/me', headers: { authorization: `Bearer ${own}` } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});
