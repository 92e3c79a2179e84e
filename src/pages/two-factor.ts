import { checkbox, errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
import { type AccountPaths, withQuery } from './paths.ts';

export interface TwoFactorLoginPageData {
  readonly antiforgeryToken: string;
  readonly returnUrl?: string;
  readonly errors?: FormErrors;
  readonly notice?: string;
  /** A confirmed phone number can receive a code. */
  readonly phoneAvailable: boolean;
}

export interface TwoFactorLoginPageLinks {
  readonly action: string;
  readonly send: string;
  readonly recovery: string;
}

export interface TwoFactorLoginPageModel extends TwoFactorLoginPageData {
  readonly links: TwoFactorLoginPageLinks;
}

export function twoFactorLoginLinks(data: TwoFactorLoginPageData, paths: AccountPaths): TwoFactorLoginPageLinks {
  return {
    action: withQuery(paths.loginTwoFactor, 'ReturnUrl', data.returnUrl),
    send: withQuery(paths.loginTwoFactorSend, 'ReturnUrl', data.returnUrl),
    recovery: withQuery(paths.loginRecovery, 'ReturnUrl', data.returnUrl),
  };
}

/** The second step of a sign-in, with a code from the authenticator, by mail or SMS, or a recovery code. */
export function twoFactorLoginPage(model: TwoFactorLoginPageModel): PageContent {
  const errors = model.errors ?? {};
  const { links } = model;
  const codeForm = postForm(
    links.action,
    model.antiforgeryToken,
    html`${field({ name: 'code', label: 'Code from your authenticator app, or the code we sent you', autocomplete: 'one-time-code' }, errors)}
<fieldset><legend>Where the code comes from</legend>
<label><input type="radio" name="provider" value="Authenticator" checked> Authenticator app</label>
<label><input type="radio" name="provider" value="Email"> E-mail</label>
${model.phoneAvailable ? html`<label><input type="radio" name="provider" value="Phone"> Text message</label>` : ''}
</fieldset>
${checkbox('rememberClient', 'Do not ask again on this browser for 14 days')}`,
    'Sign in',
  );
  const send = (provider: string, label: string) =>
    postForm(links.send, model.antiforgeryToken, html`<input type="hidden" name="provider" value="${provider}">`, label, 'secondary');
  const recoveryForm = postForm(
    links.recovery,
    model.antiforgeryToken,
    field({ name: 'recoveryCode', label: 'Recovery code', autocomplete: 'off' }, errors),
    'Sign in with a recovery code',
    'secondary',
  );
  return {
    title: 'Two-factor sign-in',
    main: html`${notice(model.notice)}
${errorSummary(errors)}
${codeForm}
<section aria-labelledby="send-heading"><h2 id="send-heading">No app at hand?</h2>
${send('Email', 'Send me a code by e-mail')}
${model.phoneAvailable ? send('Phone', 'Send me a code by text message') : ''}</section>
<section aria-labelledby="recovery-heading"><h2 id="recovery-heading">Lost your device?</h2>
${recoveryForm}</section>`,
  };
}

export interface AuthenticatorPageData {
  readonly antiforgeryToken: string;
  readonly twoFactorEnabled: boolean;
  /** The key being set up (two-factor off). */
  readonly setUp?: { readonly sharedKey: string; readonly qrSvg: string };
  /** Shown once, right after they were made. */
  readonly recoveryCodes?: readonly string[];
  readonly remainingRecoveryCodes?: number;
  readonly errors?: FormErrors;
  readonly notice?: string;
}

export interface AuthenticatorPageLinks {
  readonly enable: string;
  readonly disable: string;
  readonly recoveryCodes: string;
  readonly phone: string;
  readonly profile: string;
}

export interface AuthenticatorPageModel extends AuthenticatorPageData {
  readonly links: AuthenticatorPageLinks;
}

export function authenticatorLinks(_data: AuthenticatorPageData, paths: AccountPaths): AuthenticatorPageLinks {
  return { enable: paths.twoFactorEnable, disable: paths.twoFactorDisable, recoveryCodes: paths.recoveryCodes, phone: paths.phone, profile: paths.profile };
}

/** Set up the authenticator with its QR code, see the recovery codes, turn two-factor off. */
export function authenticatorPage(model: AuthenticatorPageModel): PageContent {
  const errors = model.errors ?? {};
  const { links } = model;
  const codeField = field({ name: 'code', label: 'Code from your authenticator app', autocomplete: 'one-time-code' }, errors);
  const recovery = model.recoveryCodes
    ? html`<section aria-labelledby="codes-heading"><h2 id="codes-heading">Your recovery codes</h2>
<p>Keep these somewhere safe. Each works once, when you have no access to your authenticator app.</p>
<ul class="recovery-codes">${model.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul></section>`
    : '';
  const body = model.twoFactorEnabled
    ? html`<p>Two-factor sign-in is on. ${model.remainingRecoveryCodes ?? 0} recovery codes are left.</p>
${recovery}
<section aria-labelledby="regenerate-heading"><h2 id="regenerate-heading">New recovery codes</h2>
${postForm(links.recoveryCodes, model.antiforgeryToken, field({ name: 'code', id: 'regenerate-code', label: 'Code from your authenticator app', autocomplete: 'one-time-code' }, errors), 'Make new recovery codes', 'secondary')}</section>
<section aria-labelledby="disable-heading"><h2 id="disable-heading">Turn two-factor sign-in off</h2>
${postForm(links.disable, model.antiforgeryToken, field({ name: 'code', id: 'disable-code', label: 'Code from your authenticator app, or a recovery code', autocomplete: 'one-time-code' }, errors), 'Turn off', 'danger')}</section>`
    : html`<p>Scan this QR code with an authenticator app, or type the key <code class="shared-key">${model.setUp?.sharedKey ?? ''}</code>, then enter the code the app shows.</p>
<p><img class="qr" alt="QR code of the authenticator key" width="240" height="240" src="${qrImage(model.setUp?.qrSvg ?? '')}"></p>
${postForm(links.enable, model.antiforgeryToken, codeField, 'Turn on two-factor sign-in')}`;
  return {
    title: 'Two-factor sign-in',
    main: html`${notice(model.notice)}
${errorSummary(errors)}
${body}
<p>Codes by text message need a confirmed phone number: <a href="${links.phone}">your phone number</a>.</p>
<nav><a href="${links.profile}">Back to your profile</a></nav>`,
  };
}

/** The QR code as an image (CSP allows `data:` images), so that no generated markup enters the page. */
function qrImage(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
