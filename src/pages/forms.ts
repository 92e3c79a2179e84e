import { ANTIFORGERY_FIELD } from '../security/crypto/antiforgery.ts';
import { type Html, html } from './html.ts';

/** Messages by field name, as problem+json's `errors` member carries them; `''` for the whole form. */
export type FormErrors = Readonly<Record<string, readonly string[]>>;

export interface FieldOptions {
  readonly name: string;
  /** The input's id, when a page has several forms with a field of the same name; the name otherwise. */
  readonly id?: string;
  readonly label: string;
  readonly type?: 'text' | 'email' | 'tel' | 'password';
  readonly value?: string;
  /** The browser's autofill hint (`username`, `current-password`, `new-password`, `email`). */
  readonly autocomplete: string;
  readonly required?: boolean;
  readonly hint?: string;
}

/**
 * A labelled input. Its errors sit right after it, tied to it by `aria-describedby` and marked
 * `aria-invalid`, so a screen reader announces them with the field.
 */
export function field(options: FieldOptions, errors: FormErrors = {}): Html {
  const { name, id = name, label, type = 'text', value, autocomplete, required = true, hint } = options;
  const messages = errors[name] ?? [];
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : '', messages.length > 0 ? errorId : ''].filter(Boolean).join(' ');
  // Passwords are never written back into a page.
  const shownValue = type === 'password' ? undefined : value;
  return html`<label for="${id}">${label}</label>
${hint ? html`<small id="${hintId}">${hint}</small>` : ''}
<input id="${id}" name="${name}" type="${type}" autocomplete="${autocomplete}"${shownValue ? html` value="${shownValue}"` : ''}${required ? html` required` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${messages.length > 0 ? html` aria-invalid="true"` : ''}>
${messages.length > 0 ? html`<p id="${errorId}" class="error">${messages.join(' ')}</p>` : ''}`;
}

export function checkbox(name: string, label: string, checked = false): Html {
  return html`<p class="check"><input id="${name}" name="${name}" type="checkbox" value="true"${checked ? html` checked` : ''}> <label for="${name}">${label}</label></p>`;
}

/** The summary at the top of a form that failed, under `heading` (the language's): every message once, announced at once. */
export function errorSummary(errors: FormErrors, heading = 'There is a problem'): Html {
  const messages = [...new Set(Object.values(errors).flat())];
  if (messages.length === 0) return html``;
  return html`<div role="alert" tabindex="-1" class="gh-error-summary"><p><strong>${heading}</strong></p><ul>${messages.map((message) => html`<li>${message}</li>`)}</ul></div>`;
}

export function antiforgeryField(token: string): Html {
  return html`<input type="hidden" name="${ANTIFORGERY_FIELD}" value="${token}">`;
}

/**
 * What a form's button does, for the built-in stylesheet: the page's main action (the accent, by
 * default), another way (outlined), or a removal (outlined in red).
 */
export type ButtonKind = 'primary' | 'secondary' | 'danger';

/** A POST form to `action` with its antiforgery field; `kind` marks the form for its button's look. */
export function postForm(action: string, antiforgeryToken: string, content: Html, submit: string, kind: ButtonKind = 'primary'): Html {
  return html`<form method="post" action="${action}" novalidate${kindClass(kind)}>
${antiforgeryField(antiforgeryToken)}
${content}
<button type="submit">${submit}</button>
</form>`;
}

/** Nothing for the main action, so that its markup stays the plain form it always was. */
export function kindClass(kind: ButtonKind): Html {
  return kind === 'primary' ? html`` : html` class="gh-${kind}"`;
}

/** A status line after an action ("We sent you a code."), announced politely; nothing without text. */
export function notice(text: string | undefined): Html {
  return text ? html`<p class="notice" role="status">${text}</p>` : html``;
}
