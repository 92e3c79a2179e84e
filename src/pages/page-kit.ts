import { antiforgeryField, checkbox, errorSummary, field, notice, postForm } from './forms.ts';
import { escapeHtml, Html, html, type LayoutModel } from './html.ts';
import type { Messages } from '../i18n/messages.ts';
import type { PageRenderers } from './rendering.ts';

/** What a page renderer returns: its title (the `<h1>`, and the `<title>` through the template) and its content. */
export interface PageContent {
  readonly title: string;
  readonly main: Html;
}

/**
 * The helpers a renderer gets, the built-in pages' own: `html` escapes every interpolated value
 * unless it is `Html` already; `raw` marks markup the application wrote itself as safe (never
 * input); the form helpers write labelled inputs, error messages and the antiforgery field.
 * `defaults` are the built-in renderers, for a page that only wraps or extends one. `messages`
 * are the texts of the request's language (`language`, its tag): the built-in pages take every
 * word from them, and a replaced renderer may too.
 */
export interface PageKit {
  readonly html: typeof html;
  readonly escape: (text: string) => string;
  readonly raw: (markup: string) => Html;
  readonly field: typeof field;
  readonly checkbox: typeof checkbox;
  readonly errorSummary: typeof errorSummary;
  readonly postForm: typeof postForm;
  readonly antiforgeryField: typeof antiforgeryField;
  readonly notice: typeof notice;
  readonly defaults: PageRenderers;
  readonly defaultLayout: (page: LayoutModel) => Html;
  readonly language: string;
  readonly messages: Messages;
}

export type PageRenderer<Model> = (model: Model, kit: PageKit) => PageContent;

export type LayoutRenderer = (page: LayoutModel, kit: PageKit) => Html;

export const PAGE_HELPERS = {
  html,
  escape: escapeHtml,
  raw: (markup: string) => Html.trusted(markup),
  field,
  checkbox,
  errorSummary,
  postForm,
  antiforgeryField,
  notice,
} as const;
