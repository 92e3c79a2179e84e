/**
 * SEC-13 with Unicode (docs/reference/http.md): a `ReturnUrl` holding characters outside ASCII — accents,
 * CJK, emoji, a full-width solidus that could pass for `/`, a right-to-left override, invalid
 * UTF-8 — never makes the sign-in a 500 (a Location header carries only ASCII: Node throws on
 * anything above U+00FF and sends U+0080–U+00FF as raw bytes). The browser is sent to the same
 * local path, percent-encoded in UTF-8, or to the profile; never to another host.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();

/** ReturnUrl as the query string carries it, and the Location a browser should be sent to. */
const CASES: [string, string][] = [
  ['/caf%C3%A9', '/caf%C3%A9'],
  ['/caf\u00e9', '/caf%C3%A9'],
  ['/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8?q=%E6%9D%B1%E4%BA%AC', '/%E6%97%A5%E6%9C%AC/%E3%83%9A%E3%83%BC%E3%82%B8?q=%E6%9D%B1%E4%BA%AC'],
  ['/%F0%9F%98%80', '/%F0%9F%98%80'],
  ['/%EF%BC%8Fevil.example', '/%EF%BC%8Fevil.example'],
  ['/%E2%80%AEfdp.exe', '/%E2%80%AEfdp.exe'],
  ['/a%20b', '/a%20b'],
];

describe.runIf(sqlite)('Unicode in ReturnUrl (SEC-13)', () => {
  const ctx = useTestApp(sqlite!);

  /** Signs in through the login page's form with `returnUrl` in the query; the answer. */
  async function signInReturningTo(returnUrl: string) {
    const { user, password } = await ctx.createUser();
    const loginPath = `/account/login?ReturnUrl=${returnUrl.replaceAll('?', '%3F').replaceAll('=', '%3D')}`;
    const page = await ctx.app.inject({ url: loginPath, headers: { accept: 'text/html' } });
    expect(page.statusCode, returnUrl).toBe(200);
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1]!.replaceAll('&amp;', '&');
    const form = await pageForm(ctx.app, loginPath, action);
    return form.submit({}, { email: user.email, password });
  }

  it.each(CASES)('signs in with ReturnUrl=%s and sends the browser to %s', async (returnUrl, location) => {
    const response = await signInReturningTo(returnUrl);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(location);
  });

  it('never answers 500 nor leaves the site, whatever the characters, invalid UTF-8 included', async () => {
    for (const returnUrl of ['/%ED%A0%80', '/%C3', '/%FF%FE', '/%EF%BC%8F%EF%BC%8Fevil.example', '/%E3%80%80/evil.example', '/%C2%85x']) {
      const response = await signInReturningTo(returnUrl);
      expect(response.statusCode, returnUrl).toBe(303);
      const location = response.headers.location as string;
      expect(location, returnUrl).toMatch(/^\/[\x21-\x7e]*$/);
      expect(location, returnUrl).not.toMatch(/^\/[/\\]/);
    }
  });

  it('keeps a Unicode ReturnUrl through the login redirect of a page that needs sign-in', async () => {
    const response = await ctx.app.inject({ url: '/account/profile?tab=%C3%A9t%C3%A9', headers: { accept: 'text/html' } });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/account/login?ReturnUrl=%2Faccount%2Fprofile%3Ftab%3D%25C3%25A9t%25C3%25A9');
  });
});
