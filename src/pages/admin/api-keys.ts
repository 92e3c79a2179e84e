import type { AdminMessages } from '../../i18n/admin-messages.ts';
import { errorSummary, field, notice, postForm } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, adminTable, buttonForm, consoleNav, when } from './console.ts';

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
export function adminApiKeysPage(model: AdminApiKeysPageModel, { messages: m }: PageKit): PageContent {
  const { links, antiforgeryToken } = model;
  const create = postForm(
    links.apiKeys,
    antiforgeryToken,
    field({ name: 'client', label: m.adminApiKeysClientLabel, value: model.client, autocomplete: 'off', hint: m.adminApiKeysClientHint }, model.errors ?? {}),
    m.adminApiKeysCreate,
  );
  return {
    title: m.adminApiKeysTitle,
    main: html`${consoleNav(links, model.sections, 'apiKeys', m)}
${notice(model.notice)}
${errorSummary(model.errors ?? {}, m.formErrorSummaryHeading)}
${model.created === null ? '' : newKey(model.created, m)}
<section aria-labelledby="create-heading"><h2 id="create-heading">${m.adminApiKeysNewHeading}</h2>
<p>${m.adminApiKeysNewText}</p>
${create}
</section>
${clientsSection(model, m)}`,
  };
}

/** The key, once: the store keeps only its hash. */
function newKey({ client, key }: NewApiKeyView, m: AdminMessages): Html {
  return html`<section id="new-key" aria-labelledby="new-key-heading" role="status"><h2 id="new-key-heading">${m.adminApiKeysCreatedHeading({ client })}</h2>
<p>${m.adminApiKeysCopyNow}</p>
<p><code id="new-key-value">${key}</code></p>
</section>`;
}

function clientsSection({ clients, links, antiforgeryToken }: AdminApiKeysPageModel, m: AdminMessages): Html {
  if (clients.length === 0) return html`<section aria-labelledby="clients-heading"><h2 id="clients-heading">${m.adminApiKeysClientsHeading}</h2><p>${m.adminApiKeysNoClient}</p></section>`;
  const rows = clients.map(
    ({ client, activeKeys, createdAt }) => html`<tr><th scope="row">${client}</th><td>${activeKeys}</td><td>${when(createdAt)}</td>
<td>${activeKeys === 0 ? m.adminApiKeysRevoked : buttonForm(links.apiKeyRevoke, antiforgeryToken, m.adminRevoke, m.adminApiKeysRevokeClient({ client }), { client })}</td></tr>`,
  );
  return html`<section aria-labelledby="clients-heading"><h2 id="clients-heading">${m.adminApiKeysClientsHeading}</h2>
${adminTable(m.adminApiKeysCaption, [m.adminApiKeysClient, m.adminApiKeysActiveKeys, m.adminApiKeysFirstKey, m.adminRevoke], rows)}
</section>`;
}
