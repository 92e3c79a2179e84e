/**
 * "Where you are signed in" on the profile page (docs/reference/http.md, docs/pages.md): the page
 * lists the user's sessions and token clients with a "Sign out" form each (this browser's is the
 * ordinary sign-out) and "Sign out everywhere else"; the forms post with their antiforgery field
 * and answer 303 back to the profile, and a post without the field changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { authSetCookie, cookiePair } from '../helpers/auth-cookie.ts';
import { testEngines } from '../helpers/databases.ts';
import { pageForm } from '../helpers/page-forms.ts';
import { bearer, json, type TestApp, useTestApp } from '../helpers/test-app.ts';

const [sqlite] = await testEngines();
const PUBLIC_URL = 'http://gatehouse.test';
const origin = { origin: PUBLIC_URL };

async function browser(ctx: TestApp, email: string, password: string, userAgent: string): Promise<string> {
  const response = await ctx.app.inject({ method: 'POST', url: '/account/login', headers: { 'user-agent': userAgent }, payload: { email, password } });
  expect(response.statusCode).toBe(200);
  return cookiePair(authSetCookie(response)!);
}

describe.runIf(sqlite)('the sessions on the profile page', () => {
  const ctx = useTestApp(sqlite!, { env: { PUBLIC_URL } });

  it('lists each session with its Sign out form, and the forms end them', async () => {
    const { user, password } = await ctx.createUser();
    const here = await browser(ctx, user.email, password, 'Here/1.0');
    const elsewhere = await browser(ctx, user.email, password, 'Elsewhere/<2.0>');
    const token = json<{ accessToken: string }>(
      await ctx.app.inject({ method: 'POST', url: '/auth/token', headers: { 'user-agent': 'App/3.0' }, payload: { email: user.email, password } }),
    ).accessToken;
    const sessions = json<{ id: string; kind: string; current: boolean; userAgent: string }[]>(await ctx.app.inject({ url: '/account/sessions', headers: { cookie: here } }));
    const other = sessions.find((session) => session.userAgent === 'Elsewhere/<2.0>')!;

    const page = await ctx.app.inject({ url: '/account/profile', headers: { accept: 'text/html', cookie: here } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h2 id="sessions-heading">Where you are signed in</h2>');
    expect(page.body).toContain('This browser');
    // The user agent is text, escaped like every value on the pages.
    expect(page.body).toContain('Elsewhere/&lt;2.0&gt;');
    expect(page.body).toContain('App/3.0');
    for (const session of sessions.filter((session) => !session.current)) expect(page.body).toContain(`action="/account/sessions/${session.id}/revoke"`);
    expect(page.body).toContain('Sign out everywhere else');

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
    expect(after.body).not.toContain('Elsewhere/');

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

  it("signs this browser out with its own Sign out, and sends a browser asking for the list to the profile's section", async () => {
    const { user, password } = await ctx.createUser();
    const here = await browser(ctx, user.email, password, 'Here/1.0');
    const redirect = await ctx.app.inject({ url: '/account/sessions', headers: { accept: 'text/html', cookie: here } });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/account/profile#sessions');
    // This browser's entry posts to the ordinary sign-out.
    const signOut = await pageForm(ctx.app, '/account/profile', '/account/logout', { cookie: here });
    expect((await signOut.submit(origin)).statusCode).toBe(303);
    expect((await ctx.app.inject({ url: '/account/profile', headers: { cookie: here } })).statusCode).toBe(401);
  });
});
