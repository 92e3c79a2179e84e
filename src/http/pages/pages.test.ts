import { describe, expect, it } from 'vitest';
import { MembershipPaths } from '../membership-paths.ts';
import { escapeHtml, html, Html } from './html.ts';
import { loginPage } from './login.ts';
import { profilePage } from './profile.ts';
import { registerPage } from './register.ts';
import { forgotPasswordPage, resetPasswordPage } from './reset-password.ts';
import { authenticatorPage, twoFactorLoginPage } from './two-factor.ts';

const TOKEN = 'af-token-value';
const paths = MembershipPaths.ROOT;
const pages: [string, Html][] = [
  ['login', loginPage({ paths, antiforgeryToken: TOKEN, providers: ['demo'] })],
  ['register', registerPage({ paths, antiforgeryToken: TOKEN, passwordMinLength: 8 })],
  ['forgot', forgotPasswordPage({ paths, antiforgeryToken: TOKEN })],
  ['reset', resetPasswordPage({ paths, antiforgeryToken: TOKEN, email: 'a@example.com', code: 'c0de', passwordMinLength: 8 })],
  ['profile', profilePage({ paths, antiforgeryToken: TOKEN, email: 'a@example.com', userName: 'ann', emailConfirmed: true, twoFactorEnabled: false, roles: [], logins: [] })],
  ['second step', twoFactorLoginPage({ paths, antiforgeryToken: TOKEN, phoneAvailable: true, errors: { code: ['Wrong code.'] } })],
  ['authenticator set-up', authenticatorPage({ paths, antiforgeryToken: TOKEN, twoFactorEnabled: false, setUp: { sharedKey: 'KEY', qrSvg: '<svg></svg>' } })],
  ['two-factor on', authenticatorPage({ paths, antiforgeryToken: TOKEN, twoFactorEnabled: true, remainingRecoveryCodes: 10, errors: { code: ['Wrong code.'] } })],
];

/** Ids used more than once on a page: a label or an error would point at the wrong input. */
function repeatedIds(markup: string): string[] {
  const ids = [...markup.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!);
  return [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))];
}

/** Every `<input id=…>` that is not hidden must have a `<label for=…>` naming it, or sit inside its `<label>`. */
function unlabelledInputs(markup: string): string[] {
  const labels = new Set([...markup.matchAll(/<label for="([^"]+)"/g)].map((match) => match[1]));
  const unwrapped = markup.replace(/<label><input [^>]*>[^<]*<\/label>/g, '');
  return [...unwrapped.matchAll(/<input ([^>]*)>/g)]
    .map((match) => match[1]!)
    .filter((attributes) => !attributes.includes('type="hidden"'))
    .map((attributes) => /id="([^"]+)"/.exec(attributes)?.[1] ?? '(no id)')
    .filter((id) => !labels.has(id));
}

describe('html', () => {
  it('escapes interpolated text, also inside attributes, and keeps Html as it is', () => {
    const evil = `"><script>alert('x')</script>&`;
    const markup = html`<p title="${evil}">${evil}</p>${html`<b>ok</b>`}`.toString();
    expect(markup).not.toContain('<script>');
    expect(markup).toContain('&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;');
    expect(markup).toContain('<b>ok</b>');
    expect(escapeHtml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&#39;');
  });

  it('renders arrays, and leaves out null, undefined and false', () => {
    expect(html`<ul>${['a<', 'b'].map((item) => html`<li>${item}</li>`)}</ul>${null}${undefined}${false}`.toString()).toBe(
      '<ul><li>a&lt;</li><li>b</li></ul>',
    );
  });
});

describe('account pages', () => {
  it.each(pages)('%s: no script, every form posts to this origin with the antiforgery field, every input labelled', (_name, page) => {
    const markup = page.toString();
    expect(markup).toMatch(/^<!doctype html>/);
    expect(markup).toContain('<html lang="en">');
    expect(markup).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
    const forms = [...markup.matchAll(/<form ([^>]*)>([\s\S]*?)<\/form>/g)];
    expect(forms.length).toBeGreaterThan(0);
    for (const [, attributes, body] of forms) {
      expect(attributes).toMatch(/method="post" action="\/[^/\\]/);
      expect(body).toContain(`<input type="hidden" name="__RequestVerificationToken" value="${TOKEN}">`);
    }
    expect(unlabelledInputs(markup)).toEqual([]);
    expect(repeatedIds(markup)).toEqual([]);
  });

  it('shows errors next to their field and in an alert summary, and never writes a password back', () => {
    const markup = loginPage({
      paths,
      antiforgeryToken: TOKEN,
      login: 'ann<b>',
      errors: { '': ['Invalid sign-in attempt.'], password: ['Enter the password.'] },
    }).toString();
    expect(markup).toContain('role="alert"');
    expect(markup).toContain('<li>Invalid sign-in attempt.</li>');
    expect(markup).toMatch(/<input id="password" [^>]*aria-describedby="password-error"[^>]*aria-invalid="true">/);
    expect(markup).toContain('<p id="password-error" class="error">Enter the password.</p>');
    expect(markup).toContain('value="ann&lt;b&gt;"');
    const register = registerPage({ paths, antiforgeryToken: TOKEN, passwordMinLength: 8, email: 'a@example.com', errors: { password: ['Too common.'] } });
    expect(register.toString()).not.toMatch(/<input id="password"[^>]*value=/);
  });

  it('keeps the ReturnUrl in the login form, encoded, and links external providers', () => {
    const markup = loginPage({ paths, antiforgeryToken: TOKEN, returnUrl: '/documents?x=1&y=2', providers: ['demo'] }).toString();
    expect(markup).toContain('action="/account/login?ReturnUrl=%2Fdocuments%3Fx%3D1%26y%3D2"');
    expect(markup).toContain('href="/account/external-login/demo?returnUrl=%2Fdocuments%3Fx%3D1%26y%3D2"');
  });
});
