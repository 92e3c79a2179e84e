import { errorSummary, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, buttonForm, consoleNav, when } from './console.ts';

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
export function adminSigningKeysPage(model: AdminSigningKeysPageModel): PageContent {
  const { links, antiforgeryToken } = model;
  return {
    title: 'Signing keys',
    main: html`${consoleNav(links, model.sections, 'signingKeys')}
${notice(model.notice)}
${errorSummary(model.errors ?? {})}
<section aria-labelledby="rotate-heading"><h2 id="rotate-heading">Rotate</h2>
<p>A rotation adds a new current key; the older ones verify the tokens they signed until those expire.</p>
${postForm(links.signingKeyRotate, antiforgeryToken, html``, 'Rotate the signing key')}
</section>
${keysSection(model)}`,
  };
}

function keysSection({ keys, links, antiforgeryToken }: AdminSigningKeysPageModel): Html {
  const rows = keys.map(
    (key) => html`<tr><th scope="row"><code>${key.kid}</code></th><td>${when(key.createdAt)}</td><td>${state(key)}</td>
<td>${buttonForm(links.signingKeyRevoke, antiforgeryToken, 'Revoke', `Revoke key ${key.kid}`, { kid: key.kid })}</td></tr>`,
  );
  return html`<section aria-labelledby="keys-heading"><h2 id="keys-heading">Keys</h2>
<p>Revoking a key refuses every token it signed at once; revoking the current key first adds a new one.</p>
<table class="admin-table">
<caption>Signing keys, newest first</caption>
<thead><tr><th scope="col">Key id</th><th scope="col">Created</th><th scope="col">State</th><th scope="col">Revoke</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</section>`;
}

function state(key: AdminSigningKeyView): string {
  if (key.current) return 'Current: signs new tokens';
  return key.verifies ? 'Verifies older tokens' : 'Retired: verifies nothing';
}
