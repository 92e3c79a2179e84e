import { describe, expect, it } from 'vitest';
import { escapeHtml, html, type Html } from './html.ts';
import { PageRendering } from './rendering.ts';

const TOKEN = 'af-token-value';
const pagesOf = new PageRendering();
const loginPage = (data: Parameters<typeof pagesOf.render<'login'>>[1]) => pagesOf.render('login', data);
const registerPage = (data: Parameters<typeof pagesOf.render<'register'>>[1]) => pagesOf.render('register', data);
const phone = { antiforgeryToken: TOKEN, available: true, phoneNumber: '+14155550123', phoneConfirmed: false } as const;
/** Pages with forms. */
const pages: [string, Html][] = [
  ['login', loginPage({ antiforgeryToken: TOKEN, providers: ['demo'] })],
  ['login of an unconfirmed account', loginPage({ antiforgeryToken: TOKEN, login: 'a@example.com', unconfirmedEmail: true, errors: { '': ['Confirm first.'] } })],
  ['register', registerPage({ antiforgeryToken: TOKEN, passwordMinLength: 8 })],
  ['forgot', pagesOf.render('forgotPassword', { antiforgeryToken: TOKEN })],
  ['reset', pagesOf.render('resetPassword', { antiforgeryToken: TOKEN, email: 'a@example.com', code: 'c0de', passwordMinLength: 8 })],
  ['resend confirmation', pagesOf.render('resendConfirmation', { antiforgeryToken: TOKEN, sent: true, errors: { email: ['Enter an e-mail.'] } })],
  ['profile', pagesOf.render('profile', { antiforgeryToken: TOKEN, email: 'a@example.com', userName: 'ann', emailConfirmed: true, twoFactorEnabled: false, roles: [], logins: [], linkable: ['demo'] })],
  ['second step', pagesOf.render('twoFactorLogin', { antiforgeryToken: TOKEN, phoneAvailable: true, errors: { code: ['Wrong code.'] } })],
  ['authenticator set-up', pagesOf.render('authenticator', { antiforgeryToken: TOKEN, twoFactorEnabled: false, setUp: { sharedKey: 'KEY', qrSvg: '<svg></svg>' } })],
  ['two-factor on', pagesOf.render('authenticator', { antiforgeryToken: TOKEN, twoFactorEnabled: true, remainingRecoveryCodes: 10, errors: { code: ['Wrong code.'] } })],
  ['phone waiting for its code', pagesOf.render('phone', { ...phone, errors: { code: ['Wrong code.'], phoneNumber: ['Not E.164.'] } })],
  ['no phone yet', pagesOf.render('phone', { ...phone, phoneNumber: null })],
];
/** Pages without forms. */
const statusPages: [string, Html][] = [
  ['registration sent', pagesOf.render('registrationSent', {})],
  ['e-mail confirmed', pagesOf.render('emailConfirmed', { confirmed: true })],
  ['confirmation link not valid', pagesOf.render('emailConfirmed', { confirmed: false })],
  ['password reset done', pagesOf.render('passwordResetDone', {})],
  ['403', pagesOf.render('error', { status: 403 })],
  ['404', pagesOf.render('error', { status: 404 })],
  ['external sign-in refused', pagesOf.render('externalLoginRefused', { message: 'No <account>.' })],
  ['phone without text messages', pagesOf.render('phone', { ...phone, available: false })],
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

  it.each(statusPages)('%s: a whole page, no script, links within the membership, no repeated ids', (_name, page) => {
    const markup = page.toString();
    expect(markup).toMatch(/^<!doctype html>/);
    expect(markup).not.toMatch(/<script|javascript:|\son[a-z]+=/i);
    for (const [, href] of markup.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^\/account\//);
    expect(repeatedIds(markup)).toEqual([]);
  });

  it('shows errors next to their field and in an alert summary, and never writes a password back', () => {
    const markup = loginPage({
      antiforgeryToken: TOKEN,
      login: 'ann<b>',
      errors: { '': ['Invalid sign-in attempt.'], password: ['Enter the password.'] },
    }).toString();
    expect(markup).toContain('role="alert"');
    expect(markup).toContain('<li>Invalid sign-in attempt.</li>');
    expect(markup).toMatch(/<input id="password" [^>]*aria-describedby="password-error"[^>]*aria-invalid="true">/);
    expect(markup).toContain('<p id="password-error" class="error">Enter the password.</p>');
    expect(markup).toContain('value="ann&lt;b&gt;"');
    const register = registerPage({ antiforgeryToken: TOKEN, passwordMinLength: 8, email: 'a@example.com', errors: { password: ['Too common.'] } });
    expect(register.toString()).not.toMatch(/<input id="password"[^>]*value=/);
  });

  it('keeps the ReturnUrl in the login form, encoded, and links external providers', () => {
    const markup = loginPage({ antiforgeryToken: TOKEN, returnUrl: '/documents?x=1&y=2', providers: ['demo'] }).toString();
    expect(markup).toContain('action="/account/login?ReturnUrl=%2Fdocuments%3Fx%3D1%26y%3D2"');
    expect(markup).toContain('href="/account/external-login/demo?returnUrl=%2Fdocuments%3Fx%3D1%26y%3D2"');
  });
});

describe('page options', () => {
  const login = { antiforgeryToken: TOKEN } as const;

  it('names the product in every title, through the title template', () => {
    expect(pagesOf.render('login', login).toString()).toContain('<title>Sign in · Gatehouse</title>');
    const branded = new PageRendering({ productName: 'Acme <ID>', titleTemplate: '{product} — {page}' });
    const markup = branded.render('login', login).toString();
    expect(markup).toContain('<title>Acme &lt;ID&gt; — Sign in</title>');
    expect(markup).toContain('<h1>Sign in</h1>');
  });

  it('links the stylesheet after the built-in one, or alone, and lets the CSP load them with no inline style', () => {
    const own = new PageRendering({ stylesheet: '/assets/site.css' });
    const markup = own.render('login', login).toString();
    const builtIn = /<link rel="stylesheet" href="\/account\/assets\/gatehouse\.[0-9a-f]{12}\.css" integrity="sha384-[A-Za-z0-9+/]{64}">/.exec(markup);
    expect(builtIn).not.toBeNull();
    expect(markup.indexOf('<link rel="stylesheet" href="/assets/site.css">')).toBeGreaterThan(builtIn!.index);
    expect(markup).not.toMatch(/<style|\sstyle=/);
    expect(own.headers['content-security-policy']).toContain(" style-src 'self';");

    const cdn = new PageRendering({ stylesheet: 'https://cdn.example.com/brand.css?v=2', builtInStyles: false }, { production: true });
    const alone = cdn.render('login', login).toString();
    expect(alone).not.toContain('/account/assets/');
    expect(alone).not.toMatch(/<style|\sstyle=/);
    expect(alone).toContain('<link rel="stylesheet" href="https://cdn.example.com/brand.css?v=2">');
    expect(cdn.headers['content-security-policy']).toContain(" style-src https://cdn.example.com;");
    expect(pagesOf.headers['content-security-policy']).toContain(" style-src 'self';");
    for (const pages of [own, cdn, pagesOf]) expect(pages.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('refuses a stylesheet that is not a path on this origin or an https URL', () => {
    for (const stylesheet of ['javascript:alert(1)', 'data:text/css,body{}', '//evil.example/x.css', 'site.css']) {
      expect(() => new PageRendering({ stylesheet })).toThrow(/pages\.stylesheet/);
    }
    expect(() => new PageRendering({ stylesheet: 'http://cdn.example.com/x.css' }, { production: true })).toThrow(/pages\.stylesheet/);
  });

  it('uses a replaced renderer with the typed model and its links, escaping what it interpolates', () => {
    const own = new PageRendering({
      renderers: {
        login: (model, kit) => ({
          title: 'Welcome back',
          main: kit.html`<p class="own">${model.login}</p>${kit.postForm(model.links.action, model.antiforgeryToken, kit.html``, 'Go')}<a href="${model.links.register}">Join</a>`,
        }),
      },
    });
    const markup = own.render('login', { antiforgeryToken: TOKEN, login: '<b>ann</b>', returnUrl: '/documents' }).toString();
    expect(markup).toContain('<title>Welcome back · Gatehouse</title>');
    expect(markup).toContain('<p class="own">&lt;b&gt;ann&lt;/b&gt;</p>');
    expect(markup).toContain('action="/account/login?ReturnUrl=%2Fdocuments"');
    expect(markup).toContain(`value="${TOKEN}"`);
    expect(markup).toContain('<a href="/account/register">Join</a>');
    // Other pages keep the built-in rendering.
    expect(own.render('register', { antiforgeryToken: TOKEN, passwordMinLength: 8 }).toString()).toContain('Create the account');
  });

  it('uses a replaced layout, and a renderer can wrap the built-in one', () => {
    const own = new PageRendering({
      layout: (page, kit) => kit.html`<!doctype html><html lang="en"><title>${page.documentTitle}</title><header>${page.productName}</header>${page.main}</html>`,
      renderers: {
        error: (model, kit) => {
          const page = kit.defaults.error(model, kit);
          return { title: page.title, main: kit.html`${page.main}<p class="help">${kit.raw('Call <strong>help</strong>.')}</p>` };
        },
      },
      productName: 'Acme',
    });
    const markup = own.render('error', { status: 403 }).toString();
    expect(markup).toContain('<header>Acme</header>');
    expect(markup).toContain('Access denied · Acme');
    expect(markup).toContain('<p class="help">Call <strong>help</strong>.</p>');
  });

  it('refuses a renderer that returns a string instead of Html', () => {
    const own = new PageRendering({ renderers: { login: () => ({ title: 'x', main: '<p>raw</p>' }) as never } });
    expect(() => own.render('login', login)).toThrow(/kit\.html/);
  });
});

describe('passkeys on the pages', () => {
  const script = { src: '/account/assets/passkeys.0123456789ab.js', integrity: 'sha384-abc' };
  const withPasskeys = new PageRendering({}, { script });
  const profile = {
    antiforgeryToken: TOKEN,
    email: 'a@example.com',
    userName: 'ann',
    emailConfirmed: true,
    twoFactorEnabled: false,
    roles: [],
    logins: [],
  } as const;
  const passkeys = [
    { id: 'AbC-_1', name: 'Laptop', createdAt: '2025-01-31T14:05:09.000Z', lastUsedAt: null, backedUp: false },
    { id: 'x/y?z', name: '"><script>alert(1)</script>', createdAt: '2025-02-01T08:00:00.000Z', lastUsedAt: '2025-02-02T09:30:00.000Z', backedUp: true },
  ];

  it('offers "Sign in with a passkey" on the login page, hidden until the script shows it, with the routes and the next pages', () => {
    const page = withPasskeys.render('login', { antiforgeryToken: TOKEN, returnUrl: '/documents?x=1' });
    const markup = page.toString();
    expect(markup).toMatch(/<section id="passkey-sign-in" [^>]*hidden data-passkey-sign-in [^>]*>/);
    expect(markup).toContain('data-options="/account/login/passkey/options" data-action="/account/login/passkey"');
    expect(markup).toContain('data-next="/documents?x=1"');
    expect(markup).toContain('data-two-factor="/account/login/2fa?ReturnUrl=%2Fdocuments%3Fx%3D1"');
    expect(markup).toContain('data-remember-me="rememberMe"');
    expect(markup).toContain('<button type="button">Sign in with a passkey</button>');
    expect(markup).toContain('<script src="/account/assets/passkeys.0123456789ab.js" integrity="sha384-abc" defer></script>');
    // One script element, a file; nothing inline.
    expect([...markup.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1])).toEqual(['']);
    expect(markup).not.toMatch(/javascript:|\son[a-z]+=/i);
    expect(repeatedIds(markup)).toEqual([]);
    expect(withPasskeys.render('login', { antiforgeryToken: TOKEN }).toString()).toContain('data-next="/account/profile"');
  });

  it('lets scripts and fetches from this origin run only on the pages that load the passkey script', () => {
    const login = withPasskeys.render('login', { antiforgeryToken: TOKEN });
    const scripted = withPasskeys.headersFor(login)['content-security-policy']!;
    expect(scripted).toContain("default-src 'none'; script-src 'self'; connect-src 'self';");
    expect(scripted).not.toContain('unsafe-inline');
    expect(scripted).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    const register = withPasskeys.render('register', { antiforgeryToken: TOKEN, passwordMinLength: 8 });
    expect(withPasskeys.headersFor(register)['content-security-policy']).not.toContain('script-src');
    // Passkeys off: no section, no script, no script-src.
    const off = pagesOf.render('login', { antiforgeryToken: TOKEN });
    expect(off.toString()).not.toContain('passkey');
    expect(pagesOf.headersFor(off)['content-security-policy']).not.toContain('script-src');
    expect(pagesOf.render('profile', { ...profile, passkeys }).toString()).not.toContain('<script');
  });

  it('lists the passkeys on the profile with their dates and backup state, escaped, each with rename and remove', () => {
    const markup = withPasskeys.render('profile', { ...profile, passkeys }).toString();
    expect(markup).toContain('<section id="passkeys" aria-labelledby="passkeys-heading" data-passkeys data-done="/account/profile">');
    expect(markup).toContain('<strong class="passkey-name">Laptop</strong>');
    expect(markup).toContain('<dt>Created</dt><dd><time datetime="2025-01-31T14:05:09.000Z">2025-01-31 14:05 UTC</time></dd>');
    expect(markup).toContain('<dt>Last used</dt><dd>never</dd>');
    expect(markup).toContain('<dt>Last used</dt><dd><time datetime="2025-02-02T09:30:00.000Z">2025-02-02 09:30 UTC</time></dd>');
    expect(markup).toContain('<dt>Backed up</dt><dd>no, on this device only</dd>');
    expect(markup).toContain('<dt>Backed up</dt><dd>yes, synced by its provider</dd>');
    expect(markup).not.toContain('<script>alert');
    expect(markup).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    // Each passkey's URL, its credential id encoded once, for the rename and the remove.
    expect(markup.match(/data-url="\/account\/passkeys\/AbC-_1"/g)).toHaveLength(2);
    expect(markup.match(/data-url="\/account\/passkeys\/x%2Fy%3Fz"/g)).toHaveLength(2);
    expect(markup).toMatch(/<form data-passkey-rename data-url="[^"]+" hidden>/);
    expect(markup).toMatch(/<form id="passkey-add" data-passkey-add data-options="\/account\/passkeys\/options" data-action="\/account\/passkeys" hidden>/);
    expect(markup).toContain('<noscript>');
    expect(unlabelledInputs(markup)).toEqual([]);
    expect(repeatedIds(markup)).toEqual([]);
    // The other forms of the page keep posting with the antiforgery field.
    for (const [, attributes, body] of markup.matchAll(/<form ([^>]*)>([\s\S]*?)<\/form>/g)) {
      if (attributes!.startsWith('method="post"')) expect(body).toContain(TOKEN);
      else expect(attributes).toMatch(/data-passkey-(rename|remove|add)/);
    }
    expect(withPasskeys.render('profile', { ...profile, passkeys: [] }).toString()).toContain('<p id="passkeys-none">No passkeys yet.');
    // A profile rendered without the list (an application's route that has none) has no section.
    expect(withPasskeys.render('profile', profile).toString()).not.toContain('id="passkeys"');
  });
});

describe('where you are signed in, on the profile', () => {
  const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
  const at = Date.UTC(2026, 0, 2, 3, 4);
  const session = { kind: 'cookie', createdAt: at, lastSeenAt: at, method: 'password' } as const;
  const sessions = [
    { ...session, id: 'here', current: true, userAgent: CHROME_ON_LINUX, ip: '192.0.2.1', device: 'Chrome on Linux', location: 'Berlin, Germany' },
    { ...session, id: 'there', current: false, userAgent: '<b>Firefox</b>', ip: '192.0.2.2', device: 'Firefox on <Windows>', location: null },
    { ...session, id: 'app', kind: 'token', current: false, userAgent: null, ip: null, method: null, device: 'An app', location: null },
  ] as const;
  const profile = { antiforgeryToken: TOKEN, email: 'a@example.com', userName: 'ann', emailConfirmed: true, twoFactorEnabled: false, roles: [], logins: [], sessions };
  const markup = pagesOf.render('profile', profile).toString();

  it('names each place by its device and where it is, escaped, and never by its user agent', () => {
    expect(markup).toContain('<strong>This browser</strong> — Chrome on Linux, Berlin, Germany</p>');
    expect(markup).toContain('<strong>Firefox on &lt;Windows&gt;</strong></p>');
    expect(markup).toContain('<strong>An app</strong></p>');
    expect(markup).toContain('last used 2026-01-02 03:04 UTC from 192.0.2.1.');
    expect(markup).not.toContain('Mozilla/5.0');
    expect(markup).not.toContain('Firefox</b>');
  });

  it('has one "Sign out" per place: the page\'s own for this browser, one form each for the others', () => {
    const forms = [...markup.matchAll(/<form [^>]*action="([^"]+)"[^>]*>[\s\S]*?<\/form>/g)];
    const actions = (text: string) => forms.filter(([form]) => form.includes(`>${text}</button>`)).map(([, action]) => action);
    expect(actions('Sign out')).toEqual(['/account/sessions/there/revoke', '/account/sessions/app/revoke', '/account/logout']);
    expect(actions('Sign out everywhere else')).toEqual(['/account/sessions/revoke-others']);
    const here = /<li(?:\s[^>]*)?>(?:(?!<\/li>)[\s\S])*This browser[\s\S]*?<\/li>/.exec(markup)![0];
    expect(here).not.toContain('<form');
    expect(repeatedIds(markup)).toEqual([]);
  });

  it('takes the application\'s locate function, and refuses anything else', () => {
    const locate = (ip: string) => (ip === '192.0.2.1' ? 'Berlin' : null);
    expect(new PageRendering({ locate }).locate).toBe(locate);
    expect(pagesOf.locate).toBeNull();
    expect(() => new PageRendering({ locate: 'geoip' as never })).toThrow(/pages\.locate/);
  });
});
