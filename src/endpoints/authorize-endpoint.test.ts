/**
 * An endpoint's authentication and authorization as a function of the request: real schemes
 * (a Bearer token issued by the access tokens, an API key) give the outcomes the Fastify pipeline
 * renders as 200, 401 with the schemes' challenges, and 403.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.ts';
import { inEnglish } from '../i18n/phrase.ts';
import { authenticationSchemes } from '../schemes/authentication-schemes.ts';
import { PolicyEvaluator } from '../security/authentication/index.ts';
import { type AuthorizationHandler, AuthorizationPolicyBuilder, AuthorizationService, PolicyProvider } from '../security/authorization/index.ts';
import { createServices, type Services } from '../services.ts';
import { createStore } from '../store/create-store.ts';
import type { Store } from '../store/ports.ts';
import { endpointAuthorization, endpointAuthorizer, type EndpointAuthorizationOptions } from './authorize-endpoint.ts';

let store: Store;
let services: Services;
let options: EndpointAuthorizationOptions;
let token: string;
let apiKey: string;
let userId: number;

beforeAll(async () => {
  store = await createStore('sqlite::memory:');
  await store.migrate();
  services = await createServices(loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:' }), store, { logger: pino({ level: 'silent' }) });
  const evaluator = new PolicyEvaluator(authenticationSchemes(services), new AuthorizationService({ handlers: [] }));
  const admins = new AuthorizationPolicyBuilder().requireAuthenticatedUser().requireRole('Admin').build();
  options = { evaluator, policies: new PolicyProvider({ policies: { Admins: admins } }) };
  const user = await services.users.create({ email: 'ada@example.com', emailConfirmed: true, password: 'correct horse battery staple' });
  userId = user.id;
  token = (await services.accessTokens.issue(user)).token;
  apiKey = await services.apiKeys.create('reports');
});

afterAll(async () => {
  await services.rateLimiter.close();
  await store.close();
});

const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` }, method: 'GET', url: '/reports' });

describe('an endpoint with a policy', () => {
  it('is a success with the principal for a valid Bearer token', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{}] } });
    const { principal, outcome } = await authorize(bearer(token));
    expect(outcome.kind).toBe('success');
    expect(principal.isAuthenticated).toBe(true);
    expect(principal.subject).not.toBeNull();
  });

  it('is a success with the principal for a valid API key on an endpoint of the ApiKey scheme', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{ schemes: ['ApiKey'] }] } });
    const { principal, outcome } = await authorize({ headers: { 'x-api-key': apiKey } });
    expect(outcome.kind).toBe('success');
    expect(principal.identities.map((identity) => identity.authenticationType)).toEqual(['ApiKey']);
  });

  it('challenges a caller with no credentials with every scheme consulted (401, WWW-Authenticate: Bearer)', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{}] } });
    const { principal, outcome } = await authorize({ headers: {}, method: 'GET', url: '/reports' });
    expect(principal.isAuthenticated).toBe(false);
    expect(outcome.kind === 'challenge' && outcome.challenges.map((challenge) => challenge.wwwAuthenticate)).toEqual(['Bearer']);
  });

  it('challenges a bad Bearer token with invalid_token and the reason', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{}] } });
    const { outcome } = await authorize(bearer(`${token.slice(0, -4)}AAAA`));
    expect(outcome.kind).toBe('challenge');
    const [challenge] = outcome.kind === 'challenge' ? outcome.challenges : [];
    expect(challenge?.wwwAuthenticate).toMatch(/^Bearer error="invalid_token", error_description="/);
    expect(challenge?.detail).toBeTruthy();
  });

  it('challenges a missing API key on an endpoint of the ApiKey scheme (WWW-Authenticate: ApiKey, "Missing API key")', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{ schemes: ['ApiKey'] }] } });
    const { outcome } = await authorize({ headers: {} });
    const challenges = outcome.kind === 'challenge' ? outcome.challenges : [];
    expect(challenges.map(({ wwwAuthenticate, detail }) => [wwwAuthenticate, detail && inEnglish(detail)])).toEqual([['ApiKey', 'Missing API key']]);
  });

  it('forbids a known caller the policy refuses, naming the scheme that knew it (403)', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{ policy: 'Admins' }] } });
    const { principal, outcome } = await authorize(bearer(token));
    expect(principal.isAuthenticated).toBe(true);
    expect(outcome).toEqual({ kind: 'forbid', schemes: ['Bearer'] });
  });

  it('combines the groups around the endpoint: a group asking for a role forbids a caller without it', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { authorize: [{}] }, groups: [{ authorize: [{ roles: ['Admin'] }] }] });
    expect((await authorize(bearer(token))).outcome.kind).toBe('forbid');
  });

  it('gets the fallback policy when it says nothing', async () => {
    const authorize = endpointAuthorizer(options);
    expect((await authorize({ headers: {} })).outcome.kind).toBe('challenge');
  });

  it('stops at definition, not per request, on an unknown policy name', () => {
    expect(() => endpointAuthorizer(options, { authorization: { authorize: [{ policy: 'Nobody' as 'Admins' }] } })).toThrow(/No authorization policy is named "Nobody"/);
  });
});

describe('an anonymous endpoint', () => {
  it('reads no credentials: a bad token leaves the caller anonymous and the request allowed', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { allowAnonymous: true } });
    const result = await authorize(bearer('not-a-token'));
    expect(result.outcome.kind).toBe('success');
    expect(result.principal.isAuthenticated).toBe(false);
    expect(result.authentication).toBeUndefined();
  });
});

describe('an endpoint without a policy that reads credentials', () => {
  const open = () => endpointAuthorizer({ ...options, policies: new PolicyProvider({ policies: {}, fallbackPolicy: null }) });

  it('knows the caller of a valid credential', async () => {
    const { principal, outcome } = await open()(bearer(token));
    expect(outcome.kind).toBe('success');
    expect(principal.isAuthenticated).toBe(true);
  });

  it('lets a caller without credentials in, anonymous', async () => {
    const { principal, outcome } = await open()({ headers: {} });
    expect(outcome.kind).toBe('success');
    expect(principal.isAuthenticated).toBe(false);
  });

  it('challenges a presented credential that does not hold', async () => {
    const { outcome } = await open()(bearer('not-a-token'));
    expect(outcome.kind).toBe('challenge');
  });

  it('reads them on an anonymous endpoint that asks to (readCredentials)', async () => {
    const authorize = endpointAuthorizer(options, { authorization: { allowAnonymous: true }, readCredentials: true });
    expect((await authorize(bearer('not-a-token'))).outcome.kind).toBe('challenge');
    expect((await authorize(bearer(token))).principal.isAuthenticated).toBe(true);
  });
});

describe('a caller recognized at once (the fast path of a host)', () => {
  const remembering = (): EndpointAuthorizationOptions => ({ ...options, verdicts: services.verdicts });
  const freshToken = async () => (await services.accessTokens.issue((await services.users.findById(userId))!)).token;

  it("is recognized once its scheme accepted the credential: the authorizer's principal, a success, the scheme that vouched", async () => {
    const { authorize, recognize } = endpointAuthorization(remembering(), { authorization: { authorize: [{}] } });
    const presented = bearer(await freshToken());
    expect(recognize!(presented)).toBeUndefined();
    const decided = await authorize!(presented);
    const known = recognize!(presented);
    expect(known?.outcome.kind).toBe('success');
    expect(known?.principal).toBe(decided.principal);
    expect(known?.authentication?.attempts.map(({ handler, result }) => [handler.scheme, result.kind])).toEqual([['Bearer', 'success']]);
  });

  it('leaves a remembered caller the policy refuses to the authorizer, which forbids', async () => {
    const { authorize, recognize } = endpointAuthorization(remembering(), { authorization: { authorize: [{ policy: 'Admins' }] } });
    const presented = bearer(await freshToken());
    expect((await authorize!(presented)).outcome.kind).toBe('forbid');
    expect(recognize!(presented)).toBeUndefined();
    expect((await authorize!(presented)).outcome.kind).toBe('forbid');
  });

  it("recognizes an API key on an endpoint of the ApiKey scheme, and a token on an open endpoint that reads credentials", async () => {
    const keyed = endpointAuthorization(remembering(), { authorization: { authorize: [{ schemes: ['ApiKey'] }] } });
    await keyed.authorize!({ headers: { 'x-api-key': apiKey } });
    expect(keyed.recognize!({ headers: { 'x-api-key': apiKey } })?.principal.identities[0]?.authenticationType).toBe('ApiKey');
    const open = endpointAuthorization({ ...remembering(), policies: new PolicyProvider({ policies: {}, fallbackPolicy: null }) });
    const presented = bearer(await freshToken());
    await open.authorize!(presented);
    expect(open.recognize!(presented)?.principal.isAuthenticated).toBe(true);
  });

  it('is none without verdicts, on an anonymous endpoint, and on a policy a registered handler may also decide', () => {
    expect(endpointAuthorization(options, { authorization: { authorize: [{}] } }).recognize).toBeNull();
    expect(endpointAuthorization(remembering(), { authorization: { allowAnonymous: true } }).recognize).toBeNull();
    const anyRequirement: AuthorizationHandler = { handle: () => undefined };
    const evaluator = new PolicyEvaluator(authenticationSchemes(services), new AuthorizationService({ handlers: [anyRequirement] }));
    expect(endpointAuthorization({ ...remembering(), evaluator }, { authorization: { authorize: [{}] } }).recognize).toBeNull();
  });
});
