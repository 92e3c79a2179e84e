import { errorSummary, field, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, buttonForm, consoleNav, when } from './console.ts';

/** A client of the `ApiKey` scheme. */
export interface AdminApiKeyClientView {
  readonly client: string;
  readonly activeKeys: number;
  /** When its first key was made (epoch ms). */
  readonly createdAt: number;
}

/** A key just made: the only time it is shown. */
export interface NewApiKeyView {
  readonly client: string;
  readonly key: string;
}

export interface AdminApiKeysPageData extends AdminPageBase {
  readonly antiforgeryToken: string;
  readonly clients: readonly AdminApiKeyClientView[];
  /** The key made by the form that sent the browser here, once; null otherwise. */
  readonly created: NewApiKeyView | null;
  /** The client name of a refused "Create" form, written back. */
  readonly client?: string;
}

export interface AdminApiKeysPageModel extends AdminApiKeysPageData {
  readonly links: AdminLinks;
}

/** The API-key clients with their active keys, a form that makes a key, and "Revoke" for each client. */
export function adminApiKeysPage(model: AdminApiKeysPageModel): PageContent {
  const { links, antiforgeryToken } = model;
  const create = postForm(
    links.apiKeys,
    antiforgeryToken,
    field({ name: 'client', label: 'Client name', value: model.client, autocomplete: 'off', hint: 'Up to 64 letters, digits, dots, underscores or hyphens.' }, model.errors ?? {}),
    'Create a key',
  );
  return {
    title: 'API keys',
    main: html`${consoleNav(links, model.sections, 'apiKeys')}
${notice(model.notice)}
${errorSummary(model.errors ?? {})}
${model.created === null ? '' : newKey(model.created)}
<section aria-labelledby="create-heading"><h2 id="create-heading">New key</h2>
<p>A client may hold several keys; revoking a client revokes all of them.</p>
${create}
</section>
${clientsSection(model)}`,
  };
}

/** The key, once: the store keeps only its hash. */
function newKey({ client, key }: NewApiKeyView): Html {
  return html`<section id="new-key" aria-labelledby="new-key-heading" role="status"><h2 id="new-key-heading">The new key of ${client}</h2>
<p>Copy it now: it is shown only this once, and cannot be read again.</p>
<p><code id="new-key-value">${key}</code></p>
</section>`;
}

function clientsSection({ clients, links, antiforgeryToken }: AdminApiKeysPageModel): Html {
  if (clients.length === 0) return html`<section aria-labelledby="clients-heading"><h2 id="clients-heading">Clients</h2><p>No client has a key.</p></section>`;
  const rows = clients.map(
    (client) => html`<tr><th scope="row">${client.client}</th><td>${client.activeKeys}</td><td>${when(client.createdAt)}</td>
<td>${client.activeKeys === 0 ? 'Revoked' : buttonForm(links.apiKeyRevoke, antiforgeryToken, 'Revoke', `Revoke every key of ${client.client}`, { client: client.client })}</td></tr>`,
  );
  return html`<section aria-labelledby="clients-heading"><h2 id="clients-heading">Clients</h2>
<table class="admin-table">
<caption>Clients with API keys</caption>
<thead><tr><th scope="col">Client</th><th scope="col">Active keys</th><th scope="col">First key</th><th scope="col">Revoke</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</section>`;
}
