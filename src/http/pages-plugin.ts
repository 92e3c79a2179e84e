import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { PageRendering } from '../pages/rendering.ts';
import { refusalPages } from './refusal-pages.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The account pages with the service's page options applied. */
    pages: PageRendering;
  }
}

export interface PagesPluginOptions {
  /** The account pages with the application's page options (the instance's). */
  readonly rendering: PageRendering;
  /** Where the membership lives (its prefix): a browser gets a page for a 403 or 404 under it. */
  readonly prefix: string;
}

/**
 * The pages of the service: `app.pages` renders them with the application's options,
 * `app.pageHeaders` are their security headers (the CSP allowing its stylesheet; `app.pages.headersFor`
 * allows the passkey script on the pages that load it), and browsers
 * get a page for a 403 or 404 under the membership paths.
 */
async function pages(app: FastifyInstance, { rendering, prefix }: PagesPluginOptions): Promise<void> {
  app.decorate('pages', rendering);
  app.decorate('pageHeaders', rendering.headers);
  refusalPages(app, prefix);
}

export const pagesPlugin = fp(pages, { name: 'gatehouse-pages', fastify: '5.x' });
