import { html } from '../html.ts';
import type { PageContent, PageKit } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, consoleNav, withMarkup } from './console.ts';

/** How much the service holds; null for a part the console does not have. */
export interface AdminCounts {
  readonly users: number;
  readonly organizations: number | null;
  /** Clients with at least one active key. */
  readonly apiKeyClients: number | null;
  /** Signing keys not revoked. */
  readonly signingKeys: number | null;
}

export interface AdminHomePageData extends AdminPageBase {
  readonly counts: AdminCounts;
}

export interface AdminHomePageModel extends AdminHomePageData {
  readonly links: AdminLinks;
}

/** The console's overview: how many of each thing there are, each a link to its page. */
export function adminHomePage(model: AdminHomePageModel, { messages: m }: PageKit): PageContent {
  const { links, counts } = model;
  const rows: [string, string, number | null][] = [
    [m.adminHomeUsers, links.users, counts.users],
    [m.adminHomeOrganizations, links.organizations, counts.organizations],
    [m.adminHomeApiKeyClients, links.apiKeys, counts.apiKeyClients],
    [m.adminHomeSigningKeys, links.signingKeys, counts.signingKeys],
  ];
  const auditLink = html`<a href="${links.audit}">${m.adminHomeAuditLink}</a>`;
  return {
    title: m.adminHomeTitle,
    main: html`${consoleNav(links, model.sections, 'home', m)}
<section aria-labelledby="counts-heading"><h2 id="counts-heading">${m.adminHomeCountsHeading}</h2>
<dl class="admin-counts">${rows
      .filter(([, , count]) => count !== null)
      .map(([label, href, count]) => html`<dt><a href="${href}">${label}</a></dt><dd>${count}</dd>`)}</dl>
</section>
<section aria-labelledby="audit-heading"><h2 id="audit-heading">${m.adminHomeAuditHeading}</h2>
<p>${withMarkup((link) => m.adminHomeAuditText({ link }), auditLink)}</p>
</section>`,
  };
}
