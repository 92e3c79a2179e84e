import { html } from '../html.ts';
import type { PageContent } from '../page-kit.ts';
import { type AdminLinks, type AdminPageBase, consoleNav } from './console.ts';

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
export function adminHomePage(model: AdminHomePageModel): PageContent {
  const { links, counts } = model;
  const rows: [string, string, number | null][] = [
    ['Users', links.users, counts.users],
    ['Organizations', links.organizations, counts.organizations],
    ['API-key clients', links.apiKeys, counts.apiKeyClients],
    ['Signing keys', links.signingKeys, counts.signingKeys],
  ];
  return {
    title: 'Admin console',
    main: html`${consoleNav(links, model.sections, 'home')}
<section aria-labelledby="counts-heading"><h2 id="counts-heading">At a glance</h2>
<dl class="admin-counts">${rows
      .filter(([, , count]) => count !== null)
      .map(([label, href, count]) => html`<dt><a href="${href}">${label}</a></dt><dd>${count}</dd>`)}</dl>
</section>
<section aria-labelledby="audit-heading"><h2 id="audit-heading">Security events</h2>
<p>Every sign-in, lock, role change and key change is in <a href="${links.audit}">the audit log</a>, newest first.</p>
</section>`,
  };
}
