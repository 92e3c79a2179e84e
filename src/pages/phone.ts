import { errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent, PageKit } from './page-kit.ts';
import type { AccountPaths } from './paths.ts';

export interface PhonePageData {
  readonly antiforgeryToken: string;
  /** False when the service cannot send text messages (production without an SMS gateway). */
  readonly available: boolean;
  readonly phoneNumber: string | null;
  readonly phoneConfirmed: boolean;
  readonly errors?: FormErrors;
  readonly notice?: string;
}

export interface PhonePageLinks {
  readonly set: string;
  readonly confirm: string;
  readonly remove: string;
  readonly twoFactor: string;
  readonly profile: string;
}

export interface PhonePageModel extends PhonePageData {
  readonly links: PhonePageLinks;
}

export function phoneLinks(_data: PhonePageData, paths: AccountPaths): PhonePageLinks {
  return { set: paths.phone, confirm: paths.phoneConfirm, remove: paths.phoneRemove, twoFactor: paths.twoFactor, profile: paths.profile };
}

/**
 * The signed-in user's phone number: add or change it (a code is texted to it), confirm it with
 * that code, remove it. A confirmed number can receive sign-in codes at the second step.
 */
export function phonePage(model: PhonePageModel, { messages: m }: PageKit): PageContent {
  const { links } = model;
  const back = html`<nav><a href="${links.twoFactor}">${m.twoFactorTitle}</a> <a href="${links.profile}">${m.authenticatorBackToProfile}</a></nav>`;
  if (!model.available) {
    return {
      title: m.phoneTitle,
      main: html`<p role="status" id="phone-unavailable">${m.phoneUnavailable}</p>
${back}`,
    };
  }
  const errors = model.errors ?? {};
  const status = model.phoneNumber === null
    ? html`<p id="phone-status">${m.phoneNone}</p>`
    : html`<p id="phone-status">${m.phoneYourNumberIs} <strong>${model.phoneNumber}</strong>, ${model.phoneConfirmed ? m.phoneConfirmed : m.phoneNotConfirmedYet}.</p>`;
  const awaitingCode = model.phoneNumber !== null && !model.phoneConfirmed;
  const confirmForm = awaitingCode
    ? html`<section aria-labelledby="confirm-heading"><h2 id="confirm-heading">${m.phoneConfirmHeading}</h2>
${postForm(links.confirm, model.antiforgeryToken, field({ name: 'code', id: 'phone-code', label: m.phoneCodeLabel, autocomplete: 'one-time-code' }, errors), m.phoneConfirmSubmit)}</section>`
    : '';
  const setForm = html`<section aria-labelledby="set-heading"><h2 id="set-heading">${model.phoneNumber === null ? m.phoneAddHeading : m.phoneAnotherHeading}</h2>
${postForm(
  links.set,
  model.antiforgeryToken,
  field({ name: 'phoneNumber', label: m.phoneNumberLabel, type: 'tel', autocomplete: 'tel', hint: m.phoneNumberHint }, errors),
  m.phoneSendSubmit,
)}</section>`;
  const removeForm =
    model.phoneNumber === null
      ? ''
      : html`<section aria-labelledby="remove-heading"><h2 id="remove-heading">${m.phoneRemoveHeading}</h2>
${postForm(links.remove, model.antiforgeryToken, html``, m.phoneRemoveSubmit, 'danger')}</section>`;
  return {
    title: m.phoneTitle,
    main: html`${notice(model.notice)}
${errorSummary(errors, m.formErrorSummaryHeading)}
${status}
${confirmForm}
${setForm}
${removeForm}
${back}`,
  };
}
