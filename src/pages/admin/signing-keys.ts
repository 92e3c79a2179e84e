import type { AdminMessages } from '../../i18n/admin-messages.ts';
import { errorSummary, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, buttonForm, consoleNav, when } from './console.ts';

/** A signing key not revoked. */
export interface AdminSigningKeyView {
  readonly kid: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Signs new tokens. */
  readonly current: boolean;
  /** Verifies tokens (a retired key does not). */
  readonly verifies: boolean;
}

export interface AdminSigningKeysPageData extends AdminPageBase {
  readonly antiforgeryToken: string;
  readonly keys: readonly AdminSigningKeyView[];
}

export interface AdminSigningKeysPageModel extends AdminSigningKeysPageData {
  readonly links: AdminLinks;
}

/** The keys that sign and verify access tokens: rotate to add a new current key, revoke to drop one at once. */
export function adminSigningKeysPage(model: AdminSigningKeysPageModel, { messages: m }: PageKit): PageContent {
  const { links, antiforgeryToken } = model;
  return {
    title: m.adminSigningKeysTitle,
    main: html`${consoleNav(links, model.sections, 'signingKeys', m)}
${notice(model.notice)}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
<section aria-labelledby="rotate-heading"><h2 id="rotate-heading">${m.adminSigningKeysRotateHeading}</h2>
<p>${m.adminSigningKeysRotateText}</p>
${postForm(links.signingKeyRotate, antiforgeryToken, html``, m.adminSigningKeysRotate)}
</section>
${keysSection(model, m)}`,
  };
}

function keysSection({ keys, links, antiforgeryToken }: AdminSigningKeysPageModel, m: AdminMessages): Html {
  const rows = keys.map(
    (key) => html`<tr><th scope="row"><code>${key.kid}</code></th><td>${when(key.createdAt)}</td><td>${state(key, m)}</td>
<td>${buttonForm(links.signingKeyRevoke, antiforgeryToken, m.adminRevoke, m.adminSigningKeysRevokeKey({ kid: key.kid }), { kid: key.kid })}</td></tr>`,
  );
  return html`<section aria-labelledby="keys-heading"><h2 id="keys-heading">${m.adminSigningKeysHeading}</h2>
<p>${m.adminSigningKeysRevokeText}</p>
${adminTable(m.adminSigningKeysCaption, [m.adminSigningKeysKid, m.adminCreated, m.adminSigningKeysState, m.adminRevoke], rows)}
</section>`;
}

function state(key: AdminSigningKeyView, m: AdminMessages): string {
  if (key.current) return m.adminSigningKeysCurrent;
  return key.verifies ? m.adminSigningKeysVerifies : m.adminSigningKeysRetired;
}
