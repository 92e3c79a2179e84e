import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { MembershipPaths } from './membership-paths.ts';
import { accountPaths } from './pages/paths.ts';
import { PageRendering, type PageOptions } from './pages/rendering.ts';
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
}

/**
 * The pages of the service: `app.pages` renders them with the application's options,
 * `app.pageHeaders` are their security headers (the CSP allowing its stylesheet), and browsers
 * get a page for a 403 or 404 under the membership paths.
 */
async function pages(app: FastifyInstance, { options, formTargets = [], production, paths }: PagesPluginOptions): Promise<void> {
  const rendering = new PageRendering(options, { formTargets, production, paths: accountPaths(`${paths.prefix}/account`) });
  app.decorate('pages', rendering);
  app.decorate('pageHeaders', rendering.headers);
  refusalPages(app, paths.prefix);
}

export const pagesPlugin = fp(pages, { name: 'gatehouse-pages', fastify: '5.x' });
