import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { MembershipPaths } from '../endpoints/membership-paths.ts';
import { accountPaths } from '../pages/paths.ts';
import { PASSKEY_SCRIPT_FOLDER, type PasskeyScript } from '../pages/passkeys/passkey-script.ts';
import { PageRendering, type PageOptions } from '../pages/rendering.ts';
import { refusalPages } from './refusal-pages.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The account pages with the service's page options applied. */
    pages: PageRendering;
  }
}

export interface PagesPluginOptions {
  readonly options?: PageOptions;
  /** Origins a page's form post may end at besides this one (external providers). */
  readonly formTargets?: readonly string[];
  readonly production: boolean;
  /** Where the membership lives (its prefix). */
  readonly paths: MembershipPaths;
  /** The passkey script when passkeys are on: the login and profile pages load it. */
  readonly passkeyScript?: PasskeyScript | null;
}

/**
 * The pages of the service: `app.pages` renders them with the application's options,
 * `app.pageHeaders` are their security headers (the CSP allowing its stylesheet; `app.pages.headersFor`
 * allows the passkey script on the pages that load it), and browsers
 * get a page for a 403 or 404 under the membership paths.
 */
async function pages(app: FastifyInstance, { options, formTargets = [], production, paths, passkeyScript = null }: PagesPluginOptions): Promise<void> {
  const script = passkeyScript === null ? null : { src: `${paths.prefix}${PASSKEY_SCRIPT_FOLDER}${passkeyScript.fileName}`, integrity: passkeyScript.integrity };
  const rendering = new PageRendering(options, { formTargets, production, paths: accountPaths(`${paths.prefix}/account`), script });
  app.decorate('pages', rendering);
  app.decorate('pageHeaders', rendering.headers);
  refusalPages(app, paths.prefix);
}

export const pagesPlugin = fp(pages, { name: 'gatehouse-pages', fastify: '5.x' });
