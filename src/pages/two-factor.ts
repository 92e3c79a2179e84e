import { checkbox, errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
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
export function twoFactorLoginPage(model: TwoFactorLoginPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const { links } = model;
  const codeForm = postForm(
    links.action,
    model.antiforgeryToken,
    html`${field({ name: 'code', label: m.twoFactorCodeLabel, autocomplete: 'one-time-code' }, errors)}
<fieldset><legend>${m.twoFactorWhereFrom}</legend>
<label><input type="radio" name="provider" value="Authenticator" checked> ${m.twoFactorAuthenticatorApp}</label>
<label><input type="radio" name="provider" value="Email"> ${m.twoFactorEmail}</label>
${model.phoneAvailable ? html`<label><input type="radio" name="provider" value="Phone"> ${m.twoFactorTextMessage}</label>` : ''}
</fieldset>
${checkbox('rememberClient', m.twoFactorRememberClient)}`,
    m.twoFactorSubmit,
  );
  const send = (provider: string, label: string) =>
    postForm(links.send, model.antiforgeryToken, html`<input type="hidden" name="provider" value="${provider}">`, label, 'secondary');
  const recoveryForm = postForm(
    links.recovery,
    model.antiforgeryToken,
    field({ name: 'recoveryCode', label: m.twoFactorRecoveryCodeLabel, autocomplete: 'off' }, errors),
    m.twoFactorRecoverySubmit,
    'secondary',
  );
  return {
    title: m.twoFactorTitle,
    main: html`${notice(model.notice)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${codeForm}
<section aria-labelledby="send-heading"><h2 id="send-heading">${m.twoFactorNoApp}</h2>
${send('Email', m.twoFactorSendByEmail)}
${model.phoneAvailable ? send('Phone', m.twoFactorSendByText) : ''}</section>
<section aria-labelledby="recovery-heading"><h2 id="recovery-heading">${m.twoFactorLostDevice}</h2>
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
export function authenticatorPage(model: AuthenticatorPageModel, { messages: m }: PageKit): PageContent {
  const errors = model.errors ?? {};
  const { links } = model;
  const codeField = field({ name: 'code', label: m.authenticatorCodeLabel, autocomplete: 'one-time-code' }, errors);
  const recovery = model.recoveryCodes
    ? html`<section aria-labelledby="codes-heading"><h2 id="codes-heading">${m.authenticatorCodesHeading}</h2>
<p>${m.authenticatorCodesAdvice}</p>
<ul class="recovery-codes">${model.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul></section>`
    : '';
  const body = model.twoFactorEnabled
    ? html`<p>${m.authenticatorOn({ remaining: model.remainingRecoveryCodes ?? 0 })}</p>
${recovery}
<section aria-labelledby="regenerate-heading"><h2 id="regenerate-heading">${m.authenticatorNewCodesHeading}</h2>
${postForm(links.recoveryCodes, model.antiforgeryToken, field({ name: 'code', id: 'regenerate-code', label: m.authenticatorCodeLabel, autocomplete: 'one-time-code' }, errors), m.authenticatorNewCodesSubmit, 'secondary')}</section>
<section aria-labelledby="disable-heading"><h2 id="disable-heading">${m.authenticatorTurnOffHeading}</h2>
${postForm(links.disable, model.antiforgeryToken, field({ name: 'code', id: 'disable-code', label: m.authenticatorTurnOffCodeLabel, autocomplete: 'one-time-code' }, errors), m.authenticatorTurnOffSubmit, 'danger')}</section>`
    : html`<p>${m.authenticatorScanBefore} <code class="shared-key">${model.setUp?.sharedKey ?? ''}</code>${m.authenticatorScanAfter}</p>
<p><img class="qr" alt="${m.authenticatorQrAlt}" width="240" height="240" src="${qrImage(model.setUp?.qrSvg ?? '')}"></p>
${postForm(links.enable, model.antiforgeryToken, codeField, m.authenticatorTurnOnSubmit)}`;
  return {
    title: m.twoFactorTitle,
    main: html`${notice(model.notice)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${body}
<p>${m.authenticatorTextNeedsPhone} <a href="${links.phone}">${m.authenticatorYourPhone}</a>.</p>
<nav><a href="${links.profile}">${m.authenticatorBackToProfile}</a></nav>`,
  };
}

/** The QR code as an image (CSP allows `data:` images), so that no generated markup enters the page. */
function qrImage(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
