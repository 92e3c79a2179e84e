import { errorSummary, field, type FormErrors, notice, postForm } from './forms.ts';
import { html } from './html.ts';
import type { PageContent } from './page-kit.ts';
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
export function phonePage(model: PhonePageModel): PageContent {
  const { links } = model;
  const back = html`<nav><a href="${links.twoFactor}">Two-factor sign-in</a> <a href="${links.profile}">Back to your profile</a></nav>`;
  if (!model.available) {
    return {
      title: 'Your phone number',
      main: html`<p role="status" id="phone-unavailable">This service cannot send text messages, so phone numbers cannot be added or confirmed here.</p>
${back}`,
    };
  }
  const errors = model.errors ?? {};
  const status = model.phoneNumber === null
    ? html`<p id="phone-status">No phone number yet.</p>`
    : html`<p id="phone-status">Your number is <strong>${model.phoneNumber}</strong>, ${model.phoneConfirmed ? 'confirmed' : 'not confirmed yet'}.</p>`;
  const awaitingCode = model.phoneNumber !== null && !model.phoneConfirmed;
  const confirmForm = awaitingCode
    ? html`<section aria-labelledby="confirm-heading"><h2 id="confirm-heading">Confirm the number</h2>
${postForm(links.confirm, model.antiforgeryToken, field({ name: 'code', id: 'phone-code', label: 'Code from the text message', autocomplete: 'one-time-code' }, errors), 'Confirm the number')}</section>`
    : '';
  const setForm = html`<section aria-labelledby="set-heading"><h2 id="set-heading">${model.phoneNumber === null ? 'Add a phone number' : 'Use another number'}</h2>
${postForm(
  links.set,
  model.antiforgeryToken,
  field({ name: 'phoneNumber', label: 'Phone number', type: 'tel', autocomplete: 'tel', hint: 'In international format, such as +14155550123. We text it a code.' }, errors),
  'Text me a code',
)}</section>`;
  const removeForm =
    model.phoneNumber === null
      ? ''
      : html`<section aria-labelledby="remove-heading"><h2 id="remove-heading">Remove the number</h2>
${postForm(links.remove, model.antiforgeryToken, html``, 'Remove the phone number', 'danger')}</section>`;
  return {
    title: 'Your phone number',
    main: html`${notice(model.notice)}
${errorSummary(errors)}
${status}
${confirmForm}
${setForm}
${removeForm}
${back}`,
  };
}
