/**
 * "Where you are signed in" on the profile page (docs/reference/http.md, docs/pages.md): the page
 * lists the user's sessions and token clients by their device ("Chrome on Linux", never the raw
 * user agent), with a "Sign out" form each but this browser's (the page's one ordinary sign-out
 * ends it), and "Sign out everywhere else"; the forms post with their antiforgery field and
 * answer 303 back to the profile, and a post without the field changes nothing. With the
 * application's `pages.locate`, each place says where it is.
 */
import { describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const origin = { origin: PUBLIC_URL };
const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0';

/** The actions of the page's forms whose button says `text`. */
function formsWithButton(page: string, text: string): string[] {
  return [...page.matchAll(/<form [^>]*action="([^"]+)"[^>]*>[\s\S]*?<\/form>/g)].filter(([form]) => form.includes(`>${text}</button>`)).map(([, action]) => action!);
}

async function browser(ctx: TestApp, email: string, password: string, userAgent: string): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { 'user-agent': userAgent }, payload: { email, password } });
  expect(response.statusCode).toBe(200);
  return cookiePair(authSetCookie(response)!);
}

describe.runIf(sqlite)('the sessions on the profile page', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL } });

  it('lists each session by its device with its Sign out form, and the forms end them', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browser(ctx, user.email, password, CHROME_ON_LINUX);
    const elsewhere = await browser(ctx, user.email, password, FIREFOX_ON_WINDOWS);
    const token = json<{ accessToken: string }>(
      await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'user-agent': 'okhttp/4.12.0' }, payload: { email: user.email, password } }),
    ).accessToken;
    const sessions = json<{ id: string; kind: string; current: boolean; userAgent: string }[]>(await ctx.app.inject({ url: '/account/sessions', headers: { cookie: here } }));
    // The JSON keeps the user agent as it came: the description is the page's.
    expect(sessions.map((session) => session.userAgent).sort()).toEqual([CHROME_ON_LINUX, FIREFOX_ON_WINDOWS, 'okhttp/4.12.0'].sort());
    const other = sessions.find((session) => session.userAgent === FIREFOX_ON_WINDOWS)!;

    const page = await ctx.app.inject({ url: '/account/profile', headers: { accept: 'text/html', cookie: here } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2 id="sessions-heading">Where you are signed in</h2>');
    expect(page.body).toContain('<strong>This browser</strong> — Chrome on Linux');
    expect(page.body).toContain('<strong>Firefox on Windows</strong>');
    expect(page.body).toContain('<strong>okhttp</strong>');
    expect(page.body).toContain('from 127.0.0.1.');
    expect(page.body).not.toContain('Mozilla/5.0');
    expect(page.body).not.toContain('okhttp/4.12.0');
    // One "Sign out" per place: the page's own for this browser, one each for the others.
    expect(formsWithButton(page.body, 'Sign out').filter((action) => action === '/account/logout')).toHaveLength(1);
    expect(formsWithButton(page.body, 'Sign out')).toHaveLength(sessions.length);
    for (const session of sessions.filter((session) => !session.current)) expect(page.body).toContain(`action="/account/sessions/${session.id}/revoke"`);
    expect(formsWithButton(page.body, 'Sign out everywhere else')).toEqual(['/account/sessions/revoke-others']);

    // Without the antiforgery field: 400, and the session goes on.
    const revoke = await pageForm(ctx.app, '/account/profile', `/account/sessions/${other.id}/revoke`, { cookie: here });
    const forged = await ctx.app.inject({
      method: 'POST',
      url: `/account/sessions/${other.id}/revoke`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: revoke.cookie, ...origin },
      payload: '',
    });
    expect(forged.statusCode).toBe(400);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: elsewhere } })).statusCode).toBe(200);

    const ended = await revoke.submit(origin);
    expect(ended.statusCode).toBe(303);
    expect(ended.headers.location).toBe('/account/profile?status=session-ended#sessions');
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: elsewhere } })).statusCode).toBe(401);
    const after = await ctx.app.inject({ url: '/account/profile?status=session-ended', headers: { accept: 'text/html', cookie: here } });
    expect(after.body).toContain('That session is signed out.');
    expect(after.body).not.toContain('Firefox on Windows');

    const everywhereElse = await pageForm(ctx.app, '/account/profile', '/account/sessions/revoke-others', { cookie: here });
    const othersEnded = await everywhereElse.submit(origin);
    expect(othersEnded.statusCode).toBe(303);
    expect(othersEnded.headers.location).toBe('/account/profile?status=sessions-ended#sessions');
    expect((await ctx.app.inject({ url: '/me', headers: bearer(token) })).statusCode).toBe(401);
    const alone = await ctx.app.inject({ url: '/account/profile', headers: { accept: 'text/html', cookie: here } });
    expect(alone.statusCode).toBe(200);
    expect(alone.body).toContain('You are signed in nowhere else.');
    expect(alone.body).not.toContain('Sign out everywhere else');
  });

  it("signs this browser out with the page's Sign out, and sends a browser asking for the list to the profile's section", async () => {
    const { user, password } = await ctx.createUser();
    const here = await browser(ctx, user.email, password, CHROME_ON_LINUX);
    const redirect = await ctx.app.inject({ url: '/account/sessions', headers: { accept: 'text/html', cookie: here } });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/account/profile#sessions');
    // This browser's one "Sign out" is the ordinary sign-out.
    const signOut = await pageForm(ctx.app, '/account/profile', '/account/logout', { cookie: here });
    expect((await signOut.submit(origin)).statusCode).toBe(303);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: here } })).statusCode).toBe(401);
  });
});

describe.runIf(sqlite)('the sessions on the profile page, located by the application', () => {
  const asked: string[] = [];
  const ctx = useTestApp(sqlite!, {
    env: { PUBLIC_URL },
    appOptions: { pages: { locate: (ip) => (asked.push(ip), Promise.resolve(ip === '127.0.0.1' ? 'Berlin <DE>' : null)) } },
  });

  it('says where each place is, escaped, asking once per address', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browser(ctx, user.email, password, CHROME_ON_LINUX);
    await browser(ctx, user.email, password, FIREFOX_ON_WINDOWS);
    asked.length = 0;
    const page = await ctx.app.inject({ url: '/account/profile', headers: { accept: 'text/html', cookie: here } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<strong>This browser</strong> — Chrome on Linux, Berlin &lt;DE&gt;</p>');
    expect(page.body).toContain('<strong>Firefox on Windows</strong>, Berlin &lt;DE&gt;</p>');
    expect(page.body).toContain('from 127.0.0.1.');
    expect(asked).toEqual(['127.0.0.1']);
  });
});
