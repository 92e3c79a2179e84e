import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config-error.ts';
import { MembershipPaths, publicLink } from './membership-paths.ts';

describe('MembershipPaths', () => {
  it('are docs/reference/http.md’s paths without a prefix', () => {
    const paths = MembershipPaths.ROOT;
    expect([paths.login, paths.profile, paths.twoFactorLogin, paths.auth]).toEqual(['/account/login', '/account/profile', '/account/login/2fa', '/auth']);
    expect(paths.externalLogin('acme')).toBe('/account/external-login/acme');
    expect(paths.externalCallback('acme')).toBe('/signin-acme');
    expect(paths.credentialPaths).toEqual(['/auth/', '/account/', '/signin-']);
  });

  it('put every path under the prefix, the refresh cookie’s folder and the credential paths included', () => {
    const paths = new MembershipPaths('/identity/v1');
    expect(paths.login).toBe('/identity/v1/account/login');
    expect(paths.resetPassword).toBe('/identity/v1/account/reset-password');
    expect(paths.recoveryCodes).toBe('/identity/v1/account/2fa/recovery-codes');
    expect(paths.linkedLogin('a b')).toBe('/identity/v1/account/logins/a%20b');
    expect(paths.auth).toBe('/identity/v1/auth');
    expect(paths.credentialPaths).toEqual(['/identity/v1/auth/', '/identity/v1/account/', '/identity/v1/signin-']);
  });

  it('send browsers to the login page with a local return URL only, encoded', () => {
    const paths = new MembershipPaths('/identity');
    expect(paths.loginFor('/documents/1?x=a&y=b')).toBe('/identity/account/login?ReturnUrl=%2Fdocuments%2F1%3Fx%3Da%26y%3Db');
    expect(paths.loginFor('//evil.example/x')).toBe('/identity/account/login');
    expect(MembershipPaths.ROOT.loginFor('/documents/1?x=a&y=b')).toBe('/account/login?ReturnUrl=%2Fdocuments%2F1%3Fx%3Da%26y%3Db');
    expect(paths.withReturnUrl(paths.twoFactorLogin, null)).toBe('/identity/account/login/2fa');
  });

  it('build absolute mail links and redirect URIs under PUBLIC_URL, keeping its own path', () => {
    const links = new MembershipPaths('/identity').accountLinks(new URL('https://example.com/base/'));
    expect(links.confirmEmail(42, 'abc_-1')).toBe('https://example.com/base/identity/account/confirm-email?userId=42&code=abc_-1');
    expect(links.resetPassword('ada+x@example.com', 'c')).toBe('https://example.com/base/identity/account/reset-password?email=ada%2Bx%40example.com&code=c');
    expect(new MembershipPaths('/identity').externalRedirectUri(new URL('https://example.com'), 'acme')).toBe('https://example.com/identity/signin-acme');
    expect(publicLink(new URL('http://127.0.0.1:3000'), '/x')).toBe('http://127.0.0.1:3000/x');
  });

  it('refuse a prefix that is not a plain path, saying what is wrong', () => {
    const refusal = (prefix: string) => {
      try {
        new MembershipPaths(prefix);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`${prefix} was accepted`);
    };
    expect(refusal('identity')).toMatch(/starts with '\/'.*"identity"/);
    expect(refusal('/')).toMatch(/trailing '\/'/);
    expect(refusal('/identity/')).toMatch(/trailing '\/'/);
    expect(refusal('/identity?x=1')).toMatch(/without '\?' or '#'/);
    expect(refusal('/identity#top')).toMatch(/without '\?' or '#'/);
    expect(refusal('/a//b')).toMatch(/empty segments/);
    for (const prefix of ['/:tenant', '/*', '/a b', '/..', '/a/./b', '/é']) expect(refusal(prefix)).toMatch(/segments of letters/);
    for (const prefix of ['', '/identity', '/id/v1', '/a.b', '/~x', '/...']) expect(new MembershipPaths(prefix).prefix).toBe(prefix);
  });
});
